use super::values::number;
use super::*;

#[test]
fn numbers_map_to_long_or_decimal_or_nothing() {
  assert!(number("12", None).is_some());
  assert!(number("9223372036854775808", None).is_none());
  assert!(number("1e+21", None).is_none());
  assert!(number("1.5", None).is_some());
  assert!(number("0.00001", None).is_none());
  assert!(number("1.5", Some(&json::Value::String("long".into()))).is_none());
  assert!(number(
    "922337203685478",
    Some(&json::Value::String("decimal".into()))
  )
  .is_none());
}

#[test]
fn escapes_decode_and_entity_keys_stay_records() {
  let v = json::parse(r#"{"__entity":{"id":"x","type":"User"},"s":"a\"\u00e9"}"#).expect("parses");
  assert!(to_cedar(&v, None).is_some());
  assert!(json::parse(r#"{"a":1}x"#).is_none());
}

/// The decision, determining policies and erroring policies of Cedar's own authorizer on
/// the whole set, and of `authorize` on the split one, for every action and input.
#[test]
fn the_split_set_decides_as_the_whole_set() {
  let text = r#"
    permit(principal, action == Action::"a", resource) when { context.input.n < 10 };
    permit(principal, action in [Action::"b", Action::"c"], resource) when { context.input.n < 5 };
    forbid(principal, action == Action::"c", resource) when { context.input.n == 3 };
    forbid(principal, action, resource) when { context.input.missing == 1 && action == Action::"d" };
    permit(principal, action in Action::"group", resource);
    permit(principal, action == Ns::Action::"a", resource);
    forbid(principal, action == Action::"b", resource) when { context.input.missing == 2 };
  "#;
  let entities = [
    None,
    Some(
      r#"[{"uid":{"type":"Action","id":"e"},"attrs":{},"parents":[{"type":"Action","id":"group"}]}]"#,
    ),
  ];
  for entities in entities {
    let compiled =
      cedar_compile(text.to_owned(), entities.map(str::to_owned), None).expect("compiles");
    let whole = PolicySet::from_str(text).expect("parses");
    for action in ["a", "b", "c", "d", "e", "group", "zz"] {
      for n in ["1", "3", "7", "12"] {
        let input = format!(r#"{{"n":{n}}}"#);
        let value = json::parse(&input).expect("json");
        let agent = compiled.agent_type.clone();
        let answer = authorize(
          &compiled,
          agent.clone(),
          "x".into(),
          action.into(),
          "x".into(),
          &value,
          None,
        )
        .expect("representable");
        let context =
          Context::from_pairs([("input".to_owned(), to_cedar(&value, None).expect("value"))])
            .expect("context");
        let uid = |t: &EntityTypeName, id: &str| {
          EntityUid::from_type_name_and_id(t.clone(), EntityId::new(id))
        };
        let request = Request::new(
          uid(&agent, "x"),
          uid(&compiled.action_type, action),
          uid(&agent, "x"),
          context,
          None,
        )
        .expect("request");
        let response = Authorizer::new().is_authorized(&request, &whole, &compiled.entities);
        let name = |pid: &PolicyId| compiled.ids[pid].0.clone();
        let mut errors: Vec<String> = response
          .diagnostics()
          .errors()
          .map(|e| match e {
            AuthorizationError::PolicyEvaluationError(e) => name(e.policy_id()),
          })
          .collect();
        errors.sort();
        let mut reasons: Vec<String> = response.diagnostics().reason().map(name).collect();
        reasons.sort();
        let mut got = answer.policies.clone();
        got.sort();
        let case = format!("action {action}, n {n}, entities {}", entities.is_some());
        if errors.is_empty() {
          let outcome = if response.decision() == Decision::Allow {
            "allow"
          } else {
            "deny"
          };
          assert_eq!(answer.outcome, outcome, "{case}");
          assert_eq!(got, reasons, "{case}");
        } else {
          assert_eq!(answer.outcome, "error", "{case}");
          assert_eq!(got, errors, "{case}");
        }
      }
    }
  }
}
