import Testing

@testable import Events

@Suite struct EnvelopeRulesTests {
  @Test(arguments: [
    "contact-13", "a", "contact", "billing.invoice-2026/11", "with space inside", "Straße-7",
    "联系人-13", "emoji-😀", "flag-🇫🇷", "x\u{301}", String(repeating: "s", count: 256),
    String(repeating: "é", count: 128),
  ])
  func acceptsStreamName(stream: String) {
    #expect(EnvelopeRules.problem(withStreamName: stream) == nil)
  }

  @Test(arguments: [
    ("", "a stream name is empty"),
    (String(repeating: "s", count: 257), "a stream name is 257 bytes, more than 256"),
    (String(repeating: "é", count: 129), "a stream name is 258 bytes, more than 256"),
    ("contact\t13", #"stream name 'contact\t13' holds a control character"#),
    ("contact\n13", #"stream name 'contact\n13' holds a control character"#),
    ("nul\u{0}", #"stream name 'nul\0' holds a control character"#),
    ("del\u{7F}", #"stream name 'del\u{7F}' holds a control character"#),
    ("next-line\u{85}", #"stream name 'next-line\u{0085}' holds a control character"#),
    ("csi\u{9B}31m", #"stream name 'csi\u{009B}31m' holds a control character"#),
    ("\"quoted\"\t", #"stream name '"quoted"\t' holds a control character"#),
    (" contact-13", "stream name ' contact-13' starts or ends with a space"),
    ("contact-13 ", "stream name 'contact-13 ' starts or ends with a space"),
    (" ", "stream name ' ' starts or ends with a space"),
    (" \u{301}contact", "stream name ' \u{301}contact' starts or ends with a space"),
  ])
  func rejectsStreamNameSayingWhy(stream: String, problem: String) {
    #expect(EnvelopeRules.problem(withStreamName: stream) == problem)
  }

  @Test(arguments: [
    "ContactFavorited", "billing.InvoiceSent", "a", "Z", "A_1.b", "v2.ZipCodeModified",
    "x" + String(repeating: "y", count: 127),
  ])
  func acceptsTypeName(type: String) {
    #expect(EnvelopeRules.problem(withTypeName: type) == nil)
  }

  @Test(arguments: [
    ("", "an event type name is empty"),
    ("1Contact", "event type '1Contact' must start with a letter (A-Z or a-z)"),
    ("_Contact", "event type '_Contact' must start with a letter (A-Z or a-z)"),
    (".Contact", "event type '.Contact' must start with a letter (A-Z or a-z)"),
    ("Écrit", "event type 'Écrit' must start with a letter (A-Z or a-z)"),
    (
      "Contact-Favorited",
      "event type 'Contact-Favorited' may hold only letters, digits, '_' and '.'"
    ),
    (
      "Contact Favorited",
      "event type 'Contact Favorited' may hold only letters, digits, '_' and '.'"
    ),
    ("Contäct", "event type 'Contäct' may hold only letters, digits, '_' and '.'"),
    ("Contact\n", "event type 'Contact\n' may hold only letters, digits, '_' and '.'"),
    (String(repeating: "x", count: 129), "event type name is 129 bytes, more than 128"),
  ])
  func rejectsTypeNameSayingWhy(type: String, problem: String) {
    #expect(EnvelopeRules.problem(withTypeName: type) == problem)
  }

  @Test(arguments: [
    ("contact-13", "contact"), ("contact", "contact"), ("a-b-c", "a"), ("-13", ""), ("", ""),
    ("billing.invoice-7", "billing.invoice"),
  ])
  func categoryIsWhatPrecedesTheFirstHyphen(stream: String, category: String) {
    #expect(EnvelopeRules.category(ofStream: stream) == category)
  }
}
