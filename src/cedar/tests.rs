use super::values::{cedar_number, decimal_text, number, Number};
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

/// The value the handler receives is JSON.parse of the canonical text (V8's shortest text of
/// the double, e.g. `String(2 ** 60)` is `1152921504606847000`); the expected integers are
/// the exact values of those doubles, written by hand (2^60 = 1152921504606846976).
#[test]
fn a_long_is_the_exact_integer_of_the_double_the_handler_holds() {
  let long = json::Value::String("long".into());
  for hint in [None, Some(&long)] {
    let n = |text: &str| cedar_number(text, hint);
    assert_eq!(
      n("1152921504606847000"),
      Some(Number::Long(1_152_921_504_606_846_976))
    );
    assert_eq!(
      n("4611686018427388000"),
      Some(Number::Long(4_611_686_018_427_387_904))
    );
    // 2^63 - 1024, the largest double below 2^63.
    assert_eq!(
      n("9223372036854775000"),
      Some(Number::Long(9_223_372_036_854_774_784))
    );
    assert_eq!(n("-9223372036854776000"), Some(Number::Long(i64::MIN)));
    assert_eq!(
      n("9007199254740992"),
      Some(Number::Long(9_007_199_254_740_992))
    );
    assert_eq!(n("-12"), Some(Number::Long(-12)));
    assert_eq!(n("0"), Some(Number::Long(0)));
    // 2^63 and beyond: no Long holds them.
    assert_eq!(n("9223372036854776000"), None);
    assert_eq!(n("1e+21"), None);
    assert_eq!(n("-1e+21"), None);
  }
  // A fraction where the schema says integer.
  assert_eq!(cedar_number("1.5", Some(&long)), None);
  assert_eq!(cedar_number("1e-7", Some(&long)), None);
}

#[test]
fn a_decimal_is_the_double_exactly_or_its_only_four_digit_name() {
  let dec = json::Value::String("decimal".into());
  let d = |text: &str| cedar_number(text, Some(&dec));
  assert_eq!(d("5"), Some(Number::Decimal(50_000)));
  assert_eq!(d("0.1"), Some(Number::Decimal(1_000)));
  assert_eq!(d("-0.1"), Some(Number::Decimal(-1_000)));
  assert_eq!(d("12.34"), Some(Number::Decimal(123_400)));
  assert_eq!(
    d("1000000000000"),
    Some(Number::Decimal(10_000_000_000_000_000))
  );
  // 2^48 + 1/16: V8 writes it 281474976710656.06; the handler holds ...656.0625 exactly.
  assert_eq!(
    d("281474976710656.06"),
    Some(Number::Decimal(2_814_749_767_106_560_625))
  );
  assert_eq!(
    d("922337203685477.5"),
    Some(Number::Decimal(9_223_372_036_854_775_000))
  );
  // 2^40 + 2^-12: both 1099511627776.0002 and 1099511627776.0003 round to it.
  assert_eq!(d("1099511627776.0002"), None);
  assert_eq!(d("922337203685478"), None);
  assert_eq!(d("1.23456"), None);
  assert_eq!(d("0.00001"), None);
  assert_eq!(d("1e-7"), None);
  assert_eq!(d("1e+21"), None);
  // No hint: integers within 64 bits are Long, other numbers decimal.
  assert_eq!(cedar_number("2.5", None), Some(Number::Decimal(25_000)));
  assert_eq!(cedar_number("9223372036854776000", None), None);
  assert_eq!(decimal_text(-1_000), "-0.1000");
  assert_eq!(decimal_text(i64::MIN), "-922337203685477.5808");
}

#[test]
fn numbers_follow_json_grammar() {
  for bad in ["01", "1.", ".5", "+1", "1e", "--1", "1.e5", "1-2", "-"] {
    assert!(json::parse(bad).is_none(), "{bad}");
  }
  for good in ["0", "-0", "1.5e+21", "1E-7", "120", "-0.25"] {
    assert!(json::parse(good).is_some(), "{good}");
  }
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
    let compiled = CedarSet::compile(text, entities, None).expect("compiles");
    let whole = PolicySet::from_str(text).expect("parses");
    for action in ["a", "b", "c", "d", "e", "group", "zz"] {
      for n in ["1", "3", "7", "12"] {
        let input = format!(r#"{{"n":{n}}}"#);
        let value = json::parse(&input).expect("json");
        let agent = compiled.agent_type.clone();
        let answer = authorize(&compiled, agent.clone(), "x", action, "x", &value, None)
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
            Outcome::Allow
          } else {
            Outcome::Deny
          };
          assert_eq!(answer.outcome, outcome, "{case}");
          assert_eq!(got, reasons, "{case}");
        } else {
          assert_eq!(answer.outcome, Outcome::Error, "{case}");
          assert_eq!(got, errors, "{case}");
        }
      }
    }
  }
}

/// The messages of a set refused for a decimal compared as a Long: the expression, its
/// Cedar type and what to write, from the policy text only (expected texts by hand).
#[test]
fn a_decimal_compared_as_a_long_says_what_to_write() {
  let schema = r#"{"":{"entityTypes":{"Agent":{}},"actions":{"buy":{"appliesTo":{"principalTypes":["Agent"],"resourceTypes":["Agent"],"context":{"type":"Record","attributes":{"input":{"type":"Record","required":true,"attributes":{
    "amount":{"type":"Extension","name":"decimal","required":true},
    "count":{"type":"Long","required":true},
    "prices":{"type":"Set","required":true,"element":{"type":"Extension","name":"decimal"}}}}}}}}}}}"#;
  let check = |condition: &str| {
    let text = format!(
      "@id(\"p\")\npermit(principal, action == Action::\"buy\", resource) when {{ {condition} }};"
    );
    let issues = check(&text, Some(schema), false);
    issues.into_iter().map(|i| i.message).collect::<Vec<_>>()
  };
  let write = |s: &str| {
    format!("`context.input.amount` is a decimal (a JSON Schema `number` is a Cedar decimal), compared by its methods, not `{s}")
  };
  assert_eq!(
    check("context.input.amount <= 100"),
    [format!(
      "for policy `p`, unexpected type: expected Long but saw decimal; {}",
      write("<=`: write `context.input.amount.lessThanOrEqual(decimal(\"100.0\"))`")
    )]
  );
  assert_eq!(
    check("context.input.amount > -5"),
    [format!(
      "for policy `p`, unexpected type: expected Long but saw decimal; {}",
      write(">`: write `context.input.amount.greaterThan(decimal(\"-5.0\"))`")
    )]
  );
  assert_eq!(
    check("100 > context.input.amount"),
    [format!(
      "for policy `p`, unexpected type: expected Long but saw decimal; {}",
      write(">`: write `context.input.amount.lessThan(decimal(\"100.0\"))`")
    )]
  );
  let plus = check("context.input.amount + 1 < 5");
  assert_eq!(plus.len(), 1);
  assert!(
    plus[0].contains("`context.input.amount` is a decimal"),
    "{}",
    plus[0]
  );
  assert!(
    plus[0].contains("arithmetic take Longs only"),
    "{}",
    plus[0]
  );
  assert_eq!(
    check("context.input.amount == 100"),
    ["for policy `p`, the types Long and decimal are not compatible; `context.input.amount == 100` compares a decimal (a JSON Schema `number` is a Cedar decimal) with a Long, which are never equal: write `context.input.amount == decimal(\"100.0\")`"]
  );
  assert_eq!(
    check("context.input.prices.contains(3)"),
    ["for policy `p`, the types Long and decimal are not compatible; `context.input.prices.contains(3)` compares a decimal (a JSON Schema `number` is a Cedar decimal) with a Long, which are never equal: write `context.input.prices.contains(decimal(\"3.0\"))`"]
  );
  let literal = check("context.input.amount.lessThan(decimal(\"100\"))");
  assert_eq!(literal.len(), 1);
  assert!(
    literal[0].ends_with(
      "; a decimal literal has digits on both sides of the point: write `decimal(\"100.0\")`"
    ),
    "{}",
    literal[0]
  );
  let long = check("context.input.count.lessThan(decimal(\"1.0\"))");
  assert_eq!(long.len(), 1);
  assert!(
    long[0].contains("applies a decimal method to a Long"),
    "{}",
    long[0]
  );
  // What Cedar accepts is accepted.
  assert!(check(
    "context.input.amount.lessThanOrEqual(decimal(\"100.0\")) && context.input.count < 3"
  )
  .is_empty());
}
