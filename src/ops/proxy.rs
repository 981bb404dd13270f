//! `dotpack run --url URL --header 'NAME: TEMPLATE'`: the launcher as a stdio ↔ streamable-HTTP
//! proxy, for a remote server whose host speaks only stdio or cannot send a header carrying a
//! secret. It checks the pin (over the URL, the header names and templates and the secret
//! names), reads the secrets as the launcher does (the store, for an entry written here; else
//! the environment), puts them into the headers, and serves the host's stdio with
//! `crate::mcp::proxy` until the host closes it.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::model::launcher::remote_pin;
use crate::ops::launch::{
    LaunchOptions, check_pin_of, from_environment, secret_value, written_here,
};
use crate::ops::secrets::find_session_bus;
use crate::util::error::Error;

/// Serves stdio as the remote server at `url`; returns 0 when the host closes stdin.
pub fn proxy(url: &str, options: &LaunchOptions) -> Result<i32> {
    if !options.command.is_empty() {
        return Err(Error::usage(
            "dotpack run takes either --url (a remote server) or a command after `--`, not both",
        )
        .into());
    }
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return Err(Error::usage(format!("--url {url}: expected an http(s) URL")).into());
    }
    for name in &options.secrets {
        crate::ops::secrets::check_name(name)?;
    }
    let templates = header_templates(&options.headers)?;
    if let Some(expected) = &options.pin {
        let actual = remote_pin(url, &options.headers, &options.secrets);
        let shown = crate::urls::redacted(url);
        check_pin_of(expected, &format!("connect to {shown}"), &actual)?;
    }
    let from_store = !options.secrets.is_empty() && written_here(options.pin.as_deref());
    if from_store {
        find_session_bus();
    }
    let mut values = BTreeMap::new();
    for name in &options.secrets {
        let value = match from_store {
            true => secret_value(name)?,
            false => from_environment(name)?,
        };
        values.insert(name.clone(), value);
    }
    let headers = render_headers(&templates, &values)?;
    let unauthorized = match options.secrets.as_slice() {
        [] => "it wants credentials: give the entry a --header with a --secret".to_string(),
        [name] => format!(
            "it refused the credentials: check the secret {name} it sends (`dotpack secret set {name}`)"
        ),
        names => format!(
            "it refused the credentials: check the secrets {} it sends (`dotpack secret set NAME`)",
            names.join(", ")
        ),
    };
    let stdin = std::io::stdin();
    crate::mcp::proxy::stdio_to_http(
        "dotpack run",
        &unauthorized,
        url,
        &headers,
        stdin.lock(),
        std::io::stdout(),
    );
    Ok(0)
}

/// Each `--header 'NAME: TEMPLATE'` as its name and template.
fn header_templates(headers: &[String]) -> Result<Vec<(String, String)>> {
    headers
        .iter()
        .map(|header| match header.split_once(':') {
            Some((name, template))
                if !name.trim().is_empty()
                    && name.trim().bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') =>
            {
                Ok((name.trim().to_string(), template.trim().to_string()))
            }
            _ => Err(Error::usage(format!(
                "--header {header:?}: expected `NAME: VALUE`, such as `Authorization: Bearer {{{{env.TOKEN}}}}`"
            ))
            .into()),
        })
        .collect()
}

/// The headers with each `{{env.NAME}}` of a `--secret NAME` replaced by its value; a reference
/// to anything else is an error (the launcher reads only the secrets it is given).
fn render_headers(
    templates: &[(String, String)],
    values: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for (name, template) in templates {
        let mut value = template.clone();
        for (secret, secret_value) in values {
            value = value.replace(&format!("{{{{env.{secret}}}}}"), secret_value);
        }
        if let Some(unknown) = crate::template::env_refs(template)
            .into_iter()
            .find(|r| !values.contains_key(r))
        {
            return Err(Error::usage(format!(
                "--header {name}: `{{{{env.{unknown}}}}}` is not a secret of this entry"
            ))
            .help(format!("add `--secret {unknown}`"))
            .into());
        }
        out.insert(name.clone(), value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_take_the_secrets_they_name_and_refuse_others() {
        let templates = header_templates(&["Authorization: Bearer {{env.T}}".to_string()]).unwrap();
        let values = BTreeMap::from([("T".to_string(), "v4lue".to_string())]);
        let headers = render_headers(&templates, &values).unwrap();
        assert_eq!(headers["Authorization"], "Bearer v4lue");
        let other = header_templates(&["X-Key: {{env.U}}".to_string()]).unwrap();
        assert!(render_headers(&other, &values).is_err());
        assert!(header_templates(&["no colon".to_string()]).is_err());
    }
}
