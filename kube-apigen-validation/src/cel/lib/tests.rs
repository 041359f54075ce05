//! Whole rules using the quantity, URL, IP, CIDR, format and semver libraries, compiled
//! as the generator compiles them and checked against JSON as generated code checks them.

use serde_json::{Value, json};

use crate::cel::{CelRule, CelRuleSpec};
use kube_apigen_core::field::{ErrorList, Path};

fn rule(source: &str) -> CelRule {
    CelRuleSpec::new(source).compile().unwrap_or_else(|err| panic!("{err}"))
}

/// The details of the errors `rule` gives on `value` at `spec`.
fn details(rule: &CelRule, value: &Value) -> Vec<String> {
    let spec = Path::ROOT.field("spec");
    let mut errors = ErrorList::new();
    rule.check(&spec, value, None, &mut errors);
    errors.iter().map(|e| e.detail.clone()).collect()
}

/// Every expression evaluates to true.
fn all_hold(expressions: &[&str]) {
    for source in expressions {
        assert_eq!(rule(source).evaluate(&json!({}), None), Ok(true), "{source}");
    }
}

#[test]
fn quantity_library() {
    all_hold(&[
        "quantity('1.5G') == quantity('1500M') && quantity('1') == quantity('1000m')",
        "quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')",
        "quantity('200M') != quantity('0.3G')",
        "isQuantity('1.3G') && isQuantity('1.3Gi') && !isQuantity('1,3G') && isQuantity('10000k')",
        "!isQuantity('200K') && !isQuantity('Three') && !isQuantity('Mi') && !isQuantity('10Mm')",
        "quantity('50000000G').isInteger() && quantity('50k').isInteger() && !quantity('500m').isInteger()",
        "!quantity('9999999999999999999999999999999999999G').isInteger()",
        "quantity('50k').asInteger() == 50000",
        "quantity('50k').sub(20000).asApproximateFloat() == 30000.0",
        "quantity('50.703k').asApproximateFloat() == 50703.0",
        "quantity('-5').sign() == -1 && quantity('0').sign() == 0 && quantity('1m').sign() == 1",
        "sign(quantity('-1Ki')) == -1",
        "quantity('50k').add(quantity('20k')) == quantity('70k') && quantity('50k').add(20) == quantity('50020')",
        "quantity('50k').add(quantity('20')) == quantity('50.02k') && !quantity('50k').add(20).isLessThan(quantity('50020'))",
        "quantity('50k').sub(quantity('20k')) == quantity('30k') && quantity('50k').sub(20000) == quantity('30k')",
        "quantity('50k').sub(quantity('20')) == quantity('49.98k') && quantity('50k').sub(20) == quantity('49980')",
        "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
        "quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger() == 20",
        "quantity('200M').compareTo(quantity('0.2G')) == 0",
        "quantity('50M').compareTo(quantity('50Mi')) == -1 && quantity('50Mi').compareTo(quantity('50M')) == 1",
        "quantity('150Mi').isGreaterThan(quantity('100Mi')) && !quantity('50Mi').isGreaterThan(quantity('100Mi'))",
        "quantity('50M').isLessThan(quantity('100M')) && !quantity('100M').isLessThan(quantity('50M'))",
        "quantity('2000m') in [quantity('1'), quantity('2')]",
        "type(quantity('1')) == kubernetes.Quantity",
    ]);
}

#[test]
fn url_library() {
    all_hold(&[
        "isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path')",
        "!isURL('https://a:b:c/') && !isURL('../relative-path')",
        "url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'",
        "url('https://example.com:80/').getHost() == 'example.com:80' && url('https://example.com/').getHost() == 'example.com'",
        "url('https://[::1]:80/').getHost() == '[::1]:80' && url('https://[::1]/').getHost() == '[::1]' && url('/path').getHost() == ''",
        "url('https://example.com:80/').getHostname() == 'example.com' && url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
        "url('https://[::1]:80/').getHostname() == '::1' && url('/path').getHostname() == ''",
        "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == '' && url('/path').getPort() == ''",
        "url('https://example.com/path').getEscapedPath() == '/path' && url('https://example.com').getEscapedPath() == ''",
        "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
        "url('https://example.com/path?key with spaces=value with spaces').getQuery() == {'key with spaces': ['value with spaces']}",
        "url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery().size() == 0",
        "url('https://example.com/a') == url('https://example.com/a') && url('https://example.com/a') != url('https://example.com/b')",
        "type(url('/')) == kubernetes.URL",
    ]);
}

#[test]
fn ip_library() {
    all_hold(&[
        "isIP('127.0.0.1') && isIP('::1') && !isIP('127.0.0.256') && !isIP(':::1')",
        "!isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0') && !isIP('01.2.3.4')",
        "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd')",
        "!ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')",
        "ip('127.0.0.1').family() == 4 && ip('::1').family() == 6",
        "ip('0.0.0.0').isUnspecified() && !ip('127.0.0.1').isUnspecified() && ip('::').isUnspecified() && !ip('::1').isUnspecified()",
        "ip('127.0.0.1').isLoopback() && !ip('192.168.0.1').isLoopback() && ip('::1').isLoopback() && !ip('2001:db8::abcd').isLoopback()",
        "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()",
        "ip('ff02::1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()",
        "ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast()",
        "ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()",
        "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()",
        "ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
        "string(ip('2001:DB8::1')) == '2001:db8::1' && string(ip('10.0.0.1')) == '10.0.0.1'",
        "ip('10.0.0.1') == ip('10.0.0.1') && ip('10.0.0.1') != ip('10.0.0.2') && ip('::') != ip('0.0.0.0')",
        "type(ip('1.2.3.4')) == net.IP",
    ]);
}

#[test]
fn cidr_library() {
    all_hold(&[
        "isCIDR('192.168.0.0/16') && isCIDR('::1/128') && !isCIDR('192.168.0.0/33') && !isCIDR('::1/129')",
        "isCIDR('192.168.0.1/16') && !isCIDR('::ffff:1.2.3.4/120') && !isCIDR('10.0.0.0')",
        "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
        "cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP('192.168.1.1')",
        "cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24')) && !cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))",
        "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && !cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')",
        "cidr('192.168.0.0/16').containsCIDR('192.168.0.1/32') && !cidr('192.168.0.0/16').containsCIDR('192.200.0.0/30')",
        "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && cidr('192.168.0.1/24').ip().family() == 4",
        "cidr('::1/128').ip() == ip('::1') && cidr('::1/128').ip().family() == 6",
        "cidr('192.168.0.0/24').masked() == cidr('192.168.0.0/24') && cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
        "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked() && cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
        "cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128",
        "string(cidr('192.168.0.1/24').masked()) == '192.168.0.0/24' && string(cidr('2001:DB8::/32')) == '2001:db8::/32'",
        "type(cidr('::/0')) == net.CIDR",
    ]);
}

#[test]
fn format_library() {
    all_hold(&[
        "!format.dns1123Label().validate('my-label-name').hasValue()",
        "!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()",
        "!format.dns1035Label().validate('my-label-name').hasValue()",
        "!format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()",
        "!format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()",
        "!format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-').hasValue()",
        "!format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()",
        "!format.labelValue().validate('my-cool-label-Value').hasValue()",
        "!format.uri().validate('http://example.com').hasValue()",
        "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()",
        "!format.byte().validate('aGVsbG8=').hasValue()",
        "!format.date().validate('2021-01-01').hasValue()",
        "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue()",
        "format.byte().validate('aGVsbG8').value() == ['invalid base64']",
        "format.date().validate('2020-01-32') == optional.of(['invalid date'])",
        "format.datetime().validate('2020-01-32T00:00:00Z').value() == ['invalid datetime']",
        "format.uuid().validate('nope').value() == ['does not match the UUID format']",
        "format.uri().validate('../x').value() == ['parse \"../x\": invalid URI for request']",
        "format.dns1123Label().validate('a.b').value() == ['must not contain dots']",
        "format.dns1123Label().validate('Not Valid').value().size() == 1",
        "!format.named('unknown').hasValue() && format.named('uuid').hasValue()",
        "format.named('dns1123Label').value() == format.dns1123Label()",
        "format.named('labelValue').value().validate('ok').orValue(['x']) == ['x']",
        "format.dns1123Label() != format.dns1123Subdomain()",
        "type(format.uri()) == kubernetes.NamedFormat",
        "'%s-%d'.format(['a', 1]) == 'a-1'",
    ]);
}

#[test]
fn semver_library() {
    all_hold(&[
        "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
        "isSemver('1.0.0') && isSemver('0.1.0-alpha.1') && !isSemver('hello') && !isSemver('v1.0')",
        "isSemver('v1.0', true) && isSemver('01.01.01', true) && !isSemver('v1.0', false)",
        "semver('v1.0.0', true) == semver('1.0.0') && semver('1.0', true) == semver('1.0.0')",
        "semver('01.01.01', true) == semver('1.1.1')",
        "semver('1.2.3').compareTo(semver('1.2.3')) == 0 && semver('1.2.3').compareTo(semver('2.0.0')) == -1",
        "semver('1.2.3').compareTo(semver('0.1.2')) == 1",
        "semver('1.2.3').isLessThan(semver('2.0.0')) && semver('2.0.0').isGreaterThan(semver('1.2.3'))",
        "semver('1.0.0-rc.1').isLessThan(semver('1.0.0')) && semver('1.0.0+a') == semver('1.0.0+b')",
        "type(semver('1.0.0')) == kubernetes.Semver",
    ]);
}

#[test]
fn rules_over_objects() {
    let scheme = rule("isURL(self.endpoint) && url(self.endpoint).getScheme() in ['http','https']");
    assert_eq!(scheme.evaluate(&json!({"endpoint": "https://api.example.com/v1"}), None), Ok(true));
    assert_eq!(scheme.evaluate(&json!({"endpoint": "ftp://files.example.com/"}), None), Ok(false));
    assert_eq!(scheme.evaluate(&json!({"endpoint": "api.example.com"}), None), Ok(false));

    let limits = rule("quantity(self.limit).isGreaterThan(quantity(self.request))");
    assert_eq!(limits.evaluate(&json!({"limit": "2Gi", "request": "1500Mi"}), None), Ok(true));
    assert_eq!(limits.evaluate(&json!({"limit": "1", "request": "1000m"}), None), Ok(false));

    let cidrs = rule("self.all(c, isCIDR(c))");
    assert_eq!(cidrs.evaluate(&json!(["10.0.0.0/8", "fd00::/8"]), None), Ok(true));
    assert_eq!(cidrs.evaluate(&json!(["10.0.0.0/8", "10.0.0.1"]), None), Ok(false));

    let name = rule("format.dns1123Label().validate(self.name).hasValue() == false");
    assert_eq!(name.evaluate(&json!({"name": "my-app"}), None), Ok(true));
    assert_eq!(name.evaluate(&json!({"name": "My_App"}), None), Ok(false));

    // Gateway API's address rule, and a containment check over two fields.
    let addresses = rule(
        "self.all(a, a.type == 'IPAddress' ? isIP(a.value) : true) && \
         self.exists(a, a.type == 'IPAddress' && ip(a.value).family() == 6)",
    );
    assert_eq!(
        addresses.evaluate(
            &json!([{"type": "IPAddress", "value": "2001:db8::1"}, {"type": "Hostname", "value": "x"}]),
            None
        ),
        Ok(true)
    );
    assert_eq!(addresses.evaluate(&json!([{"type": "IPAddress", "value": "2001:db8::g"}]), None), Ok(false));
    let subnet = rule("cidr(self.network).containsIP(self.address) && !ip(self.address).isLoopback()");
    assert_eq!(subnet.evaluate(&json!({"network": "10.0.0.0/8", "address": "10.1.2.3"}), None), Ok(true));
    assert_eq!(subnet.evaluate(&json!({"network": "10.0.0.0/8", "address": "11.1.2.3"}), None), Ok(false));
    let upgrade = rule("semver(self, true).isGreaterThan(semver(oldSelf, true))");
    assert!(upgrade.is_transition_rule());
    assert_eq!(upgrade.evaluate(&json!("v1.3"), Some(&json!("1.2.9"))), Ok(true));
    assert_eq!(upgrade.evaluate(&json!("v1.2"), Some(&json!("1.2.9"))), Ok(false));
}

#[test]
fn messages_from_the_format_library() {
    let compiled = CelRuleSpec::new("!format.dns1123Label().validate(self.name).hasValue()")
        .with_message_expression("self.name + ': ' + format.dns1123Label().validate(self.name).value().join('; ')")
        .compile()
        .unwrap();
    assert_eq!(details(&compiled, &json!({"name": "a.b"})), ["a.b: must not contain dots"]);
    assert_eq!(details(&compiled, &json!({"name": "ok"})), Vec::<String>::new());
}

#[test]
fn evaluation_errors_are_worded_as_kubernetes() {
    let error = |source: &str, value: Value| {
        let details = details(&rule(source), &value);
        assert_eq!(details.len(), 1, "{source}: {details:?}");
        details[0].clone()
    };
    assert_eq!(
        error("quantity(self.q).sign() >= 0", json!({"q": "10Mo"})),
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: quantity(self.q).sign() >= 0"
    );
    assert_eq!(
        error("quantity(self.q).sign() >= 0", json!({"q": "10Mm"})),
        "unable to parse quantity's suffix evaluating rule: quantity(self.q).sign() >= 0"
    );
    assert_eq!(
        error("quantity(self.q).asInteger() > 0", json!({"q": "1e19"})),
        "cannot convert value to integer evaluating rule: quantity(self.q).asInteger() > 0"
    );
    assert_eq!(
        error("url(self.u).getHost() != ''", json!({"u": "../x"})),
        "URL parse error during conversion from string: parse \"../x\": invalid URI for request evaluating rule: url(self.u).getHost() != ''"
    );
    assert_eq!(
        error("ip(self.a).family() == 4", json!({"a": "1.2.3"})),
        "IP Address \"1.2.3\" parse error during conversion from string: ParseAddr(\"1.2.3\"): IPv4 address too short evaluating rule: ip(self.a).family() == 4"
    );
    assert_eq!(
        error("ip(self.a).family() == 4", json!({"a": "::ffff:1.2.3.4"})),
        "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed evaluating rule: ip(self.a).family() == 4"
    );
    assert_eq!(
        error("cidr(self.c).prefixLength() > 8", json!({"c": "10.0.0.0"})),
        "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0\"): no '/' evaluating rule: cidr(self.c).prefixLength() > 8"
    );
    assert_eq!(
        error("semver(self.v).major() > 0", json!({"v": "1.0"})),
        "No Major.Minor.Patch elements found evaluating rule: semver(self.v).major() > 0"
    );
    let no_overload = |source: &str| {
        format!(
            "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: {source}"
        )
    };
    for source in [
        "quantity(self.n).sign() > 0",
        "ip('1.2.3.4').containsIP(self.s)",
        "cidr('10.0.0.0/8').containsIP(self.s)",
        "self.s.family() == 4",
        "quantity('1') < quantity('2')",
    ] {
        assert_eq!(error(source, json!({"n": 1, "s": "not-an-ip"})), no_overload(source));
    }
}

#[test]
fn unknown_names_in_the_libraries_do_not_compile() {
    for source in [
        "format.nope().validate('x').hasValue()",
        "ip.nope('1.2.3.4')",
        "quantity('1').frobnicate()",
        "net.Nope == net.IP",
    ] {
        assert!(CelRuleSpec::new(source).compile().is_err(), "{source}");
    }
}
