#if !canImport(Darwin)
  import Foundation
  import Testing

  @testable import Importers

  /// The libcurl transfer behind URL imports off Apple's systems (the fetches themselves are
  /// tested end to end against a local server in `ImportFromURLTests`).
  @Suite struct CurlTransferTests {
    @Test func aMachineWithoutLibcurlGetsAClearRefusalThatIsNotRetried() throws {
      #expect(CurlTransfer.Library.load(from: ["libreplay-no-such-library.so.9"]) == nil)
      let url = try #require(URL(string: "https://example.com/contacts.json"))
      guard
        case .failure(let code, let reason) = CurlTransfer.get(
          url, accept: "*/*", timeout: 1, library: nil)
      else {
        Issue.record("a missing library gave an answer")
        return
      }
      #expect(code == CurlTransfer.libraryMissing)
      #expect(!CurlTransfer.isRetryable(code))
      #expect(reason.contains("needs libcurl (libcurl.so.4)"))
      #expect(reason.contains("import it from its path"))
    }

    /// The failures worth another attempt are those `URLSession`'s retried set names: the host
    /// not found, the connection refused or lost, a timeout, a garbled answer.
    @Test func failuresAreRetriedAndWordedAsURLSessionsWere() throws {
      let url = try #require(URL(string: "http://127.0.0.1:8080/x.json"))
      func reason(_ code: Int32, _ detail: String = "") -> String {
        HTTPFetcher.reason(CurlTransfer.failure(code, detail: detail), url: url, timeout: 2)
      }
      #expect(reason(28) == "timed out after 2 s")
      #expect(reason(6) == "DNS lookup failed: no address for host '127.0.0.1'")
      #expect(reason(7) == "connection refused by 127.0.0.1:8080")
      #expect(reason(56) == "the connection was lost")
      #expect(reason(60, "SSL certificate problem") == "SSL certificate problem")
      #expect(reason(60) == "network error 60")
      for code: Int32 in [5, 6, 7, 8, 16, 18, 28, 52, 55, 56, 92] {
        #expect(CurlTransfer.isRetryable(code), "\(code)")
      }
      // Unsupported protocol, bad URL, TLS failures, a refused certificate, too many
      // redirects: the same again would fail the same way.
      for code: Int32 in [1, 3, 35, 47, 60, CurlTransfer.libraryMissing] {
        #expect(!CurlTransfer.isRetryable(code), "\(code)")
      }
    }
  }
#endif
