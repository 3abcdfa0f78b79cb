import Events
import Foundation
import Synchronization

/// Fetches a source over HTTP(S), synchronously, retrying what may succeed on a second try.
///
/// - Retried: failures to connect (connection refused, DNS failure, no network, the connection
///   lost), timeouts, and the statuses 5xx and 429. Not retried: any other 4xx status, TLS and
///   URL errors.
/// - The delay before retry n is `baseDelay × 2^(n-1)`: 0.5 s, 1 s, 2 s, ... by default.
/// - `timeout` bounds each attempt.
///
/// On Apple's systems through `URLSession`: it calls back on its own queue; the calling thread
/// waits on a semaphore, and the result crosses over in a `Mutex`, so the wrapper is safe under
/// strict concurrency. Elsewhere through libcurl, loaded only when a URL is fetched
/// (`CurlTransfer`), which keeps FoundationNetworking and its libraries out of every process.
package struct HTTPFetcher: Sendable {
  /// The body of a successful (2xx) answer.
  public struct Response: Sendable, Equatable {
    /// The status, 200–299.
    public var status: Int
    /// The `Content-Type` header, if any.
    public var contentType: String?
    /// The body.
    public var body: [UInt8]
    /// How many attempts it took (1 when the first succeeded).
    public var attempts: Int
  }

  /// Seconds each attempt may take.
  public var timeout: Double
  /// How many times a failed attempt is retried (so at most `retries + 1` attempts).
  public var retries: Int
  /// Seconds before the first retry; each later one waits twice as long as the one before.
  public var baseDelay: Double
  /// Waits between attempts (injectable so tests need not sleep).
  public var sleep: @Sendable (Double) -> Void
  /// Told before each retry why the last attempt failed and how long the wait is, e.g.
  /// `http://host/x answered HTTP 503 Service Unavailable; retrying in 0.5 s (attempt 2 of 3)`.
  public var onRetry: @Sendable (String) -> Void

  public init(
    timeout: Double = 30, retries: Int = 2, baseDelay: Double = 0.5,
    sleep: @escaping @Sendable (Double) -> Void = { Thread.sleep(forTimeInterval: $0) },
    onRetry: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.timeout = timeout
    self.retries = retries
    self.baseDelay = baseDelay
    self.sleep = sleep
    self.onRetry = onRetry
  }

  /// Fetches `url` (written as `text` in messages).
  /// - Throws: `ImportError.unreachable` or `.httpStatus`, naming the attempts made.
  public func fetch(_ url: URL, text: String) throws(ImportError) -> Response {
    #if canImport(Darwin)
      let configuration = URLSessionConfiguration.ephemeral
      configuration.timeoutIntervalForRequest = timeout
      configuration.timeoutIntervalForResource = timeout
      configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
      configuration.urlCache = nil
      let session = URLSession(configuration: configuration)
      defer { session.finishTasksAndInvalidate() }
    #endif
    let attempts = max(0, retries) + 1
    var attempt = 1
    while true {
      #if canImport(Darwin)
        let outcome = once(url, session: session)
      #else
        let outcome = once(url)
      #endif
      let failure: ImportError
      switch outcome {
      case .response(let status, let contentType, let body) where (200..<300).contains(status):
        return Response(status: status, contentType: contentType, body: body, attempts: attempt)
      case .response(let status, _, _):
        failure = .httpStatus(url: text, status: status, attempts: attempt)
        guard HTTPStatus.isRetryable(status) else { throw failure }
      case .failure(let retryable, let reason):
        failure = .unreachable(url: text, reason: reason, attempts: attempt)
        guard retryable else { throw failure }
      }
      guard attempt < attempts else { throw failure }
      let delay = baseDelay * Double(1 << min(attempt - 1, 20))
      onRetry(
        "\(Self.describe(outcome, text)); retrying in \(Self.seconds(delay)) "
          + "(attempt \(attempt + 1) of \(attempts))")
      sleep(delay)
      attempt += 1
    }
  }

  /// What one attempt got.
  enum Outcome: Sendable {
    case response(status: Int, contentType: String?, body: [UInt8])
    case failure(retryable: Bool, reason: String)
  }

  /// The `Accept` header of every request.
  static let accept =
    "application/json, application/geo+json, application/x-plist;q=0.9, */*;q=0.5"

  /// A transport failure, as either platform's transfer classifies it; the common ones are
  /// worded once, in `reason`.
  enum TransportFailure {
    case timedOut, hostNotFound, refused, lost, offline
    /// Any other, in the transfer's own words.
    case other(String)
  }

  /// `failure` of a fetch of `url` that may take `timeout` seconds, in words.
  static func reason(_ failure: TransportFailure, url: URL, timeout: Double) -> String {
    let host = url.host ?? ""
    switch failure {
    case .timedOut: return "timed out after \(seconds(timeout))"
    case .hostNotFound: return "DNS lookup failed: no address for host '\(host)'"
    case .refused:
      let port = url.port.map { ":\($0)" } ?? ""
      return "connection refused by \(host)\(port)"
    case .lost: return "the connection was lost"
    case .offline: return "no network connection"
    case .other(let text): return text
    }
  }

  /// `0.5 s`, `2 s`.
  static func seconds(_ value: Double) -> String {
    (value == value.rounded() ? String(Int(value)) : String(value)) + " s"
  }

  /// The failed attempt, for a retry notice.
  static func describe(_ outcome: Outcome, _ text: String) -> String {
    switch outcome {
    case .response(let status, _, _):
      let phrase = HTTPStatus.reasonPhrase(status).map { " " + $0 } ?? ""
      return "\(text) answered HTTP \(status)\(phrase)"
    case .failure(_, let reason):
      return "cannot reach \(text): \(reason)"
    }
  }
}

#if !canImport(Darwin)
  extension HTTPFetcher {
    private func once(_ url: URL) -> Outcome {
      switch CurlTransfer.get(url, accept: Self.accept, timeout: timeout) {
      case .response(let status, let contentType, let body):
        return .response(status: status, contentType: contentType, body: body)
      case .failure(let code, let detail):
        return .failure(
          retryable: CurlTransfer.isRetryable(code),
          reason: Self.reason(
            CurlTransfer.failure(code, detail: detail), url: url, timeout: timeout))
      }
    }
  }
#else
  extension HTTPFetcher {
    /// Holds an attempt's outcome while it crosses from `URLSession`'s queue to the waiting
    /// thread.
    private final class OutcomeBox: Sendable {
      let outcome = Mutex<Outcome?>(nil)
    }

    private func once(_ url: URL, session: URLSession) -> Outcome {
      var request = URLRequest(
        url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
      request.setValue(Self.accept, forHTTPHeaderField: "Accept")
      let box = OutcomeBox()
      let done = DispatchSemaphore(value: 0)
      let limit = timeout
      let task = session.dataTask(with: request) { data, response, error in
        let outcome: Outcome
        if let error {
          let code = (error as NSError).code
          outcome = .failure(
            retryable: Self.isRetryable(code),
            reason: Self.reason(
              Self.failure(code, error: error as NSError), url: url, timeout: limit))
        } else if let http = response as? HTTPURLResponse {
          outcome = .response(
            status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"),
            body: Array(data ?? Data()))
        } else {
          outcome = .failure(retryable: true, reason: "the answer is not HTTP")
        }
        box.outcome.withLock { $0 = outcome }
        done.signal()
      }
      task.resume()
      // URLSession enforces the timeout; this is a backstop should its callback never come.
      if done.wait(timeout: .now() + timeout + 5) == .timedOut {
        task.cancel()
        return .failure(retryable: true, reason: "no answer within \(Self.seconds(timeout))")
      }
      return box.outcome.withLock { $0 }
        ?? .failure(retryable: true, reason: "the request ended without an answer")
    }

    /// Whether a transport error may go away on another attempt.
    static func isRetryable(_ code: Int) -> Bool {
      [
        NSURLErrorTimedOut, NSURLErrorCannotFindHost, NSURLErrorCannotConnectToHost,
        NSURLErrorNetworkConnectionLost, NSURLErrorDNSLookupFailed,
        NSURLErrorNotConnectedToInternet, NSURLErrorBadServerResponse,
        NSURLErrorCannotParseResponse, NSURLErrorUnknown,
      ].contains(code)
    }

    /// A transport error, classified.
    static func failure(_ code: Int, error: NSError) -> TransportFailure {
      switch code {
      case NSURLErrorTimedOut: .timedOut
      case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: .hostNotFound
      case NSURLErrorCannotConnectToHost: .refused
      case NSURLErrorNetworkConnectionLost: .lost
      case NSURLErrorNotConnectedToInternet: .offline
      default:
        .other(error.userInfo[NSLocalizedDescriptionKey] as? String ?? "network error \(code)")
      }
    }
  }
#endif
