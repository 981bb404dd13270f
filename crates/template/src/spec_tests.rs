//! Every example of the MCI template specification (`seeds/mci-templates.txt`), with its exact
//! output. Where the specification states an output its own template does not produce, the test
//! follows the template and says so (docs/templates.md lists these places).
//!
//! The specification resolves `{{env.X}}` from the environment; dotpack keeps it a reference in
//! the host's syntax. [`resolve`] substitutes the references from a map, to check the language
//! itself; [`host`] shows what dotpack writes.

use serde_json::json;

use super::*;

fn props(v: serde_json::Value) -> Props {
    match v {
        Value::Object(map) => map.into_iter().collect(),
        _ => Props::new(),
    }
}

/// Renders `s` as MCI does: env references resolved from `env`, else their default.
fn resolve(s: &str, p: &serde_json::Value, env: &[(&str, &str)]) -> String {
    let props = props(p.clone());
    let parts = parse_parts(s, &Context::new(&props)).unwrap();
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Env { names, default } => {
                let value = names
                    .iter()
                    .find_map(|n| env.iter().find(|(k, _)| k == n).map(|(_, v)| v.to_string()))
                    .or(default)
                    .unwrap_or_default();
                out.push_str(&value);
            }
        }
    }
    out
}

/// What dotpack writes for a `${VAR}` host.
fn host(s: &str, p: &serde_json::Value) -> String {
    let props = props(p.clone());
    render_for_host(s, &Context::new(&props), EnvSyntax::DollarBrace).unwrap()
}

#[test]
fn basic_substitution_json_example() {
    let p = json!({"request_id": "r-1", "username": "ann", "email": "ann@example.com"});
    let env = [
        ("API_BASE_URL", "https://api.example.com"),
        ("API_TOKEN", "t0k"),
        ("TIMESTAMP", "2024-01-01"),
    ];
    assert_eq!(
        resolve("{{env.API_BASE_URL}}/users", &p, &env),
        "https://api.example.com/users"
    );
    assert_eq!(resolve("Bearer {{env.API_TOKEN}}", &p, &env), "Bearer t0k");
    assert_eq!(host("Bearer {{env.API_TOKEN}}", &p), "Bearer ${API_TOKEN}");
    assert_eq!(resolve("{{props.request_id}}", &p, &env), "r-1");
    assert_eq!(resolve("{{props.username}}", &p, &env), "ann");
    assert_eq!(resolve("{{props.email}}", &p, &env), "ann@example.com");
    assert_eq!(resolve("{{env.TIMESTAMP}}", &p, &env), "2024-01-01");
}

#[test]
fn file_and_text_execution_examples() {
    let p = json!({"template_name": "welcome", "username": "Ann"});
    assert_eq!(
        resolve("./templates/{{props.template_name}}.txt", &p, &[]),
        "./templates/welcome.txt"
    );
    let s = "Hello {{props.username}}! Welcome to {{env.APP_NAME}}.";
    assert_eq!(
        resolve(s, &p, &[("APP_NAME", "Acme")]),
        "Hello Ann! Welcome to Acme."
    );
    assert_eq!(host(s, &p), "Hello Ann! Welcome to ${APP_NAME}.");
}

#[test]
fn nested_properties_example() {
    let p = json!({"user": {"id": 42}, "post": {"id": "p7"}});
    assert_eq!(
        resolve(
            "https://api.example.com/users/{{props.user.id}}/posts/{{props.post.id}}",
            &p,
            &[]
        ),
        "https://api.example.com/users/42/posts/p7"
    );
}

#[test]
fn default_value_examples() {
    let none = json!({});
    assert_eq!(
        resolve("{{env.API_URL|'https://api.example.com'}}/data", &none, &[]),
        "https://api.example.com/data"
    );
    assert_eq!(
        host("{{env.API_URL|'https://api.example.com'}}/data", &none),
        "${API_URL:-https://api.example.com}/data"
    );
    assert_eq!(resolve("{{env.TIMEOUT|'5000'}}", &none, &[]), "5000");
    assert_eq!(
        resolve("{{env.PYTHON_BIN|'python3'}}", &none, &[]),
        "python3"
    );
    let args = [
        ("{{props.host|'localhost'}}", "localhost"),
        ("{{props.port|'8080'}}", "8080"),
        ("{{props.verbose|'false'}}", "false"),
    ];
    for (s, want) in args {
        assert_eq!(resolve(s, &none, &[]), want);
    }
    let p = json!({"host": "db", "port": 5433, "verbose": true});
    assert_eq!(resolve("{{props.port|'8080'}}", &p, &[]), "5433");
    assert_eq!(resolve("{{props.verbose|'false'}}", &p, &[]), "true");
    assert_eq!(
        resolve(
            "{{env.CONFIG_DIR|'./config'}}/{{props.env|'development'}}.json",
            &none,
            &[]
        ),
        "./config/development.json"
    );
}

#[test]
fn multiple_levels_example() {
    let s = "{{env.API_URL|env.FALLBACK_URL|'https://api.example.com'}}";
    let none = json!({});
    assert_eq!(resolve(s, &none, &[]), "https://api.example.com");
    assert_eq!(
        resolve(s, &none, &[("FALLBACK_URL", "https://f")]),
        "https://f"
    );
    assert_eq!(
        resolve(
            s,
            &none,
            &[("API_URL", "https://a"), ("FALLBACK_URL", "https://f")]
        ),
        "https://a"
    );
    // Inputs chain the same way, at any depth.
    let p = json!({"b": {"c": "deep"}});
    assert_eq!(resolve("{{props.a|props.b.c|'d'}}", &p, &[]), "deep");
}

const SIMPLE_CONDITIONAL: &str = "Welcome to the application!

@if(props.premium)
You have access to premium features.
@else
Upgrade to premium for more features.
@endif
";

#[test]
fn simple_conditional_example() {
    assert_eq!(
        resolve(SIMPLE_CONDITIONAL, &json!({"premium": true}), &[]),
        "Welcome to the application!\n\nYou have access to premium features.\n"
    );
    assert_eq!(
        resolve(SIMPLE_CONDITIONAL, &json!({"premium": false}), &[]),
        "Welcome to the application!\n\nUpgrade to premium for more features.\n"
    );
}

const REPORT: &str = "Report for: {{props.username}}

@if(props.status == \"active\")
Status: Active - All systems operational
@elseif(props.status == \"pending\")
Status: Pending - Awaiting approval
@elseif(props.status == \"suspended\")
Status: Suspended - Contact support
@else
Status: Unknown
@endif
";

#[test]
fn multiple_conditions_example() {
    let cases = [
        ("active", "Status: Active - All systems operational"),
        ("pending", "Status: Pending - Awaiting approval"),
        ("suspended", "Status: Suspended - Contact support"),
        ("gone", "Status: Unknown"),
    ];
    for (status, line) in cases {
        assert_eq!(
            resolve(REPORT, &json!({"username": "ann", "status": status}), &[]),
            format!("Report for: ann\n\n{line}\n")
        );
    }
}

const ACCESS: &str = "User: {{props.username}}

@if(props.age >= 18)
✓ Access granted to adult content
@else
✗ Access restricted - Must be 18 or older
@endif

@if(props.credits > 0)
Available credits: {{props.credits}}
@else
No credits remaining - Please purchase more
@endif
";

#[test]
fn numeric_comparison_example() {
    assert_eq!(
        resolve(
            ACCESS,
            &json!({"username": "ann", "age": 18, "credits": 5}),
            &[]
        ),
        "User: ann\n\n✓ Access granted to adult content\n\nAvailable credits: 5\n"
    );
    assert_eq!(
        resolve(
            ACCESS,
            &json!({"username": "bo", "age": 17, "credits": 0}),
            &[]
        ),
        "User: bo\n\n✗ Access restricted - Must be 18 or older\n\nNo credits remaining - Please purchase more\n"
    );
    // The table's other rows.
    let p = json!({"role": "user", "count": 99, "enabled": true});
    assert_eq!(resolve("@if(props.role != \"admin\")y@endif", &p, &[]), "y");
    assert_eq!(resolve("@if(props.count < 100)y@endif", &p, &[]), "y");
    assert_eq!(resolve("@if(props.enabled)y@endif", &p, &[]), "y");
}

#[test]
fn inline_conditional_example() {
    let s = "@if(props.online)Server is online and responding@else Server is offline or not responding@endif";
    assert_eq!(
        resolve(s, &json!({"online": true}), &[]),
        "Server is online and responding"
    );
    // The space after `@else` belongs to the text: the template says so.
    assert_eq!(
        resolve(s, &json!({"online": false}), &[]),
        " Server is offline or not responding"
    );
}

const CONFIG_XML: &str = "<?xml version=\"1.0\"?>
<configuration>
  <database>
    <host>{{env.DB_HOST|'localhost'}}</host>
    <port>{{env.DB_PORT|'5432'}}</port>
  </database>

  @if(props.enable_cache)
  <cache>
    <enabled>true</enabled>
    <ttl>{{props.cache_ttl|'3600'}}</ttl>
  </cache>
  @endif

  @if(props.environment == \"production\")
  <logging>
    <level>error</level>
  </logging>
  @else
  <logging>
    <level>debug</level>
  </logging>
  @endif
</configuration>
";

#[test]
fn xml_conditionals_example() {
    let p = json!({"enable_cache": true, "environment": "production"});
    assert_eq!(
        resolve(CONFIG_XML, &p, &[("DB_HOST", "db")]),
        "<?xml version=\"1.0\"?>
<configuration>
  <database>
    <host>db</host>
    <port>5432</port>
  </database>

  <cache>
    <enabled>true</enabled>
    <ttl>3600</ttl>
  </cache>

  <logging>
    <level>error</level>
  </logging>
</configuration>
"
    );
    let p = json!({"enable_cache": false, "environment": "dev"});
    assert_eq!(
        resolve(CONFIG_XML, &p, &[]),
        "<?xml version=\"1.0\"?>
<configuration>
  <database>
    <host>localhost</host>
    <port>5432</port>
  </database>


  <logging>
    <level>debug</level>
  </logging>
</configuration>
"
    );
}

#[test]
fn simple_loop_example_follows_its_template() {
    let s = "Items:\n@for(i in range(0, 5))\n  {{i}}. Item number {{i}}\n@endfor\n";
    // The specification states "Item number 0" … without the indentation and the `{{i}}. `
    // its own template writes; the template wins.
    assert_eq!(
        resolve(s, &json!({}), &[]),
        "Items:\n  0. Item number 0\n  1. Item number 1\n  2. Item number 2\n  3. Item number 3\n  4. Item number 4\n"
    );
}

#[test]
fn loop_with_variables_example() {
    let s = "Report Summary:\n\n@for(i in range(1, 11))\nWeek {{i}}: {{props.weekly_data[i - 1]}}\n@endfor\n";
    let p = json!({"weekly_data": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]});
    let mut want = "Report Summary:\n\n".to_string();
    for i in 1..=10 {
        want.push_str(&format!("Week {i}: {}\n", i * 10));
    }
    assert_eq!(resolve(s, &p, &[]), want);
}

#[test]
fn numbers_example_keeps_the_trailing_space() {
    // The specification states "Numbers: 0 1 2 3 4 5 6 7 8 9"; its template puts a space after
    // every number, the last one included.
    assert_eq!(
        resolve(
            "Numbers: @for(i in range(0, 10)){{i}} @endfor",
            &json!({}),
            &[]
        ),
        "Numbers: 0 1 2 3 4 5 6 7 8 9 "
    );
}

#[test]
fn array_iteration_example() {
    let s = "Available Items:\n@foreach(item in props.items)\n- {{item}}\n@endforeach\n";
    let p = json!({"items": ["Apple", "Banana", "Cherry", "Date"]});
    assert_eq!(
        resolve(s, &p, &[]),
        "Available Items:\n- Apple\n- Banana\n- Cherry\n- Date\n"
    );
}

#[test]
fn object_array_example() {
    let s = "User List:\n\n@foreach(user in props.users)\nName: {{user.name}}\nEmail: {{user.email}}\nRole: {{user.role}}\n---\n@endforeach\n";
    let p = json!({"users": [
        { "name": "Alice", "email": "alice@example.com", "role": "admin" },
        { "name": "Bob", "email": "bob@example.com", "role": "user" },
        { "name": "Charlie", "email": "charlie@example.com", "role": "user" }
    ]});
    assert_eq!(
        resolve(s, &p, &[]),
        "User List:

Name: Alice
Email: alice@example.com
Role: admin
---
Name: Bob
Email: bob@example.com
Role: user
---
Name: Charlie
Email: charlie@example.com
Role: user
---
"
    );
}

#[test]
fn nested_foreach_example() {
    let s = "@foreach(category in props.categories)
Category: {{category.name}}
  @foreach(item in category.items)
  - {{item.name}}: ${{item.price}}
  @endforeach
@endforeach
";
    let p = json!({"categories": [
        {"name": "Fruit", "items": [{"name": "Apple", "price": 1.5}, {"name": "Pear", "price": 2}]},
        {"name": "Empty", "items": []}
    ]});
    assert_eq!(
        resolve(s, &p, &[]),
        "Category: Fruit\n  - Apple: $1.5\n  - Pear: $2\nCategory: Empty\n"
    );
}

#[test]
fn foreach_over_an_object_gives_key_and_value() {
    let s = "@foreach(h in props.headers)--header={{h.key}}:{{h.value}} @endforeach";
    let p = json!({"headers": {"X-A": "1", "X-B": "two"}});
    assert_eq!(resolve(s, &p, &[]), "--header=X-A:1 --header=X-B:two ");
}

const DATA_XML: &str = "<?xml version=\"1.0\"?>
<data>
  <timestamp>{{env.TIMESTAMP}}</timestamp>

  <users>
    @foreach(user in props.users)
    <user>
      <id>{{user.id}}</id>
      <name>{{user.name}}</name>
      <email>{{user.email}}</email>
      @if(user.active)
      <status>active</status>
      @else
      <status>inactive</status>
      @endif
    </user>
    @endforeach
  </users>
</data>
";

#[test]
fn xml_foreach_example() {
    let p = json!({"users": [
        {"id": 1, "name": "Alice", "email": "a@x", "active": true},
        {"id": 2, "name": "Bob", "email": "b@x", "active": false}
    ]});
    assert_eq!(
        resolve(DATA_XML, &p, &[("TIMESTAMP", "T")]),
        "<?xml version=\"1.0\"?>
<data>
  <timestamp>T</timestamp>

  <users>
    <user>
      <id>1</id>
      <name>Alice</name>
      <email>a@x</email>
      <status>active</status>
    </user>
    <user>
      <id>2</id>
      <name>Bob</name>
      <email>b@x</email>
      <status>inactive</status>
    </user>
  </users>
</data>
"
    );
}

const PROMPT: &str = "Task: {{props.task_type}}
User: {{props.username|'Guest'}}
Environment: {{env.ENVIRONMENT|'development'}}

@if(props.priority == \"high\")
⚠️ HIGH PRIORITY TASK
@endif

Instructions:
@for(i in range(1, props.step_count + 1))
Step {{i}}:
  @if(props.steps[i - 1])
  {{props.steps[i - 1]}}
  @else
  (Step not defined)
  @endif
@endfor

Resources:
@foreach(resource in props.resources)
- {{resource.name}} ({{resource.type}}): {{resource.url}}
@endforeach

@if(props.include_notes)
Additional Notes:
{{props.notes|'No additional notes provided'}}
@endif
";

#[test]
fn complex_template_example() {
    let p = json!({
        "task_type": "review",
        "priority": "high",
        "step_count": 3,
        "steps": ["read", "comment"],
        "resources": [{"name": "Guide", "type": "doc", "url": "https://g"}],
        "include_notes": true
    });
    assert_eq!(
        resolve(PROMPT, &p, &[]),
        "Task: review
User: Guest
Environment: development

⚠️ HIGH PRIORITY TASK

Instructions:
Step 1:
  read
Step 2:
  comment
Step 3:
  (Step not defined)

Resources:
- Guide (doc): https://g

Additional Notes:
No additional notes provided
"
    );
}

const CONFIG_JSON: &str = "{
  \"appName\": \"{{env.APP_NAME|'MyApp'}}\",
  \"version\": \"{{props.version|'1.0.0'}}\",
  \"environment\": \"{{env.ENVIRONMENT|'development'}}\",

  @if(props.enable_database)
  \"database\": {
    \"host\": \"{{env.DB_HOST|'localhost'}}\",
    \"port\": {{env.DB_PORT|'5432'}},
    \"name\": \"{{env.DB_NAME|'myapp'}}\"
  },
  @endif

  \"features\": {
    @foreach(feature in props.features)
    \"{{feature.name}}\": {{feature.enabled}}
    @endforeach
  }
}
";

#[test]
fn json_configuration_example() {
    let p = json!({
        "enable_database": true,
        "features": [{"name": "search", "enabled": true}]
    });
    assert_eq!(
        resolve(CONFIG_JSON, &p, &[]),
        "{
  \"appName\": \"MyApp\",
  \"version\": \"1.0.0\",
  \"environment\": \"development\",

  \"database\": {
    \"host\": \"localhost\",
    \"port\": 5432,
    \"name\": \"myapp\"
  },

  \"features\": {
    \"search\": true
  }
}
"
    );
}

const REPORT_XML: &str = "<?xml version=\"1.0\"?>
<report>
  <metadata>
    <generated>{{env.TIMESTAMP}}</generated>
    <user>{{props.username}}</user>
    <type>{{props.report_type}}</type>
  </metadata>

  @if(props.summary)
  <summary>
    <total>{{props.summary.total}}</total>
    <successful>{{props.summary.successful}}</successful>
    <failed>{{props.summary.failed}}</failed>
  </summary>
  @endif

  <items>
    @foreach(item in props.items)
    <item id=\"{{item.id}}\">
      <name>{{item.name}}</name>
      <status>{{item.status}}</status>

      @if(item.status == \"error\")
      <error>
        <message>{{item.error_message}}</message>
        <code>{{item.error_code}}</code>
      </error>
      @endif

      @if(item.metrics)
      <metrics>
        @foreach(metric in item.metrics)
        <metric name=\"{{metric.name}}\">{{metric.value}}</metric>
        @endforeach
      </metrics>
      @endif
    </item>
    @endforeach
  </items>
</report>
";

#[test]
fn xml_report_example() {
    let p = json!({
        "username": "ann",
        "report_type": "daily",
        "summary": {"total": 2, "successful": 1, "failed": 1},
        "items": [
            {"id": 1, "name": "a", "status": "ok", "metrics": [{"name": "ms", "value": 12}]},
            {"id": 2, "name": "b", "status": "error", "error_message": "boom", "error_code": 500}
        ]
    });
    assert_eq!(
        resolve(REPORT_XML, &p, &[("TIMESTAMP", "T")]),
        "<?xml version=\"1.0\"?>
<report>
  <metadata>
    <generated>T</generated>
    <user>ann</user>
    <type>daily</type>
  </metadata>

  <summary>
    <total>2</total>
    <successful>1</successful>
    <failed>1</failed>
  </summary>

  <items>
    <item id=\"1\">
      <name>a</name>
      <status>ok</status>


      <metrics>
        <metric name=\"ms\">12</metric>
      </metrics>
    </item>
    <item id=\"2\">
      <name>b</name>
      <status>error</status>

      <error>
        <message>boom</message>
        <code>500</code>
      </error>

    </item>
  </items>
</report>
"
    );
}

#[test]
fn best_practice_examples() {
    let none = json!({});
    assert_eq!(
        resolve("{{env.API_URL|'https://api.example.com'}}", &none, &[]),
        "https://api.example.com"
    );
    let p = json!({"user_email": "a@b", "report_type": "r"});
    assert_eq!(
        resolve(
            "{{props.user_email}} {{env.DATABASE_URL}} {{props.report_type}}",
            &p,
            &[("DATABASE_URL", "pg://")]
        ),
        "a@b pg:// r"
    );
}
