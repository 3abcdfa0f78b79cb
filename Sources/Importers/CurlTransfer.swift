#if !canImport(Darwin)
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// One HTTP(S) GET through libcurl, loaded with `dlopen` the first time a URL is fetched.
  ///
  /// Off Apple's systems `URLSession` lives in FoundationNetworking, and linking it loads
  /// libcurl, TLS, HTTP/2, SSH and IDN libraries into every process: about 7 MiB of resident
  /// memory and the symbol lookups of a dozen libraries at each start, for every command,
  /// though only `import` from a URL ever fetches. So the engine asks libcurl itself, and only
  /// then; a machine without libcurl can run everything but URL imports.
  ///
  /// `curl_easy_setopt` and `curl_easy_getinfo` are variadic in C. They are called through
  /// fixed prototypes with one integer or pointer argument, which the x86-64 and AArch64 Linux
  /// calling conventions pass in the same register either way.
  enum CurlTransfer {
    /// What one attempt got.
    enum Result {
      case response(status: Int, contentType: String?, body: [UInt8])
      /// `code` is libcurl's `CURLcode`; `reason` is in words.
      case failure(code: Int32, reason: String)
    }

    /// Fetches `url` once, giving up after `timeout` seconds.
    static func get(
      _ url: URL, accept: String, timeout: Double, library: Library? = Library.shared
    ) -> Result {
      guard let library else {
        return .failure(
          code: libraryMissing,
          reason:
            "fetching a URL needs libcurl (libcurl.so.4), which this machine lacks; install it "
            + "(Debian and Ubuntu: apt-get install libcurl4) or download the file and import "
            + "it from its path")
      }
      return library.get(url, accept: accept, timeout: timeout)
    }

    /// The `code` of a failure to load libcurl (not a `CURLcode`).
    static let libraryMissing: Int32 = -1

    /// Whether a failure may go away on another attempt: the host not found, the connection
    /// refused or lost, a timeout, a garbled answer (as `URLSession`'s retried errors).
    static func isRetryable(_ code: Int32) -> Bool {
      [5, 6, 7, 8, 16, 18, 28, 52, 55, 56, 92].contains(code)
    }

    /// A failure, classified: the common ones as `URLSession`'s are, the rest in libcurl's
    /// words (its error buffer, else `curl_easy_strerror`).
    static func failure(_ code: Int32, detail: String) -> HTTPFetcher.TransportFailure {
      switch code {
      case 28: .timedOut
      case 6: .hostNotFound
      case 7: .refused
      case 52, 55, 56: .lost
      default: .other(detail.isEmpty ? "network error \(code)" : detail)
      }
    }

    /// libcurl's functions, looked up once.
    struct Library: @unchecked Sendable {
      typealias Handle = OpaquePointer
      let easyInit: @convention(c) () -> Handle?
      let setLong: @convention(c) (Handle?, Int32, Int) -> Int32
      let setPointer: @convention(c) (Handle?, Int32, UnsafeRawPointer?) -> Int32
      let perform: @convention(c) (Handle?) -> Int32
      let getInfo: @convention(c) (Handle?, Int32, UnsafeMutableRawPointer?) -> Int32
      let cleanup: @convention(c) (Handle?) -> Void
      let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?
      let listAppend: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
      let listFree: @convention(c) (OpaquePointer?) -> Void

      /// The library, loaded the first time it is asked for.
      static let shared = load(
        from: ["libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.so"])

      /// The first of `names` that loads, or `nil` when none does or a function is missing.
      static func load(from names: [String]) -> Library? {
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first
        else { return nil }
        func symbol<T>(_ name: String, as: T.Type) -> T? {
          dlsym(handle, name).map { unsafeBitCast($0, to: T.self) }
        }
        typealias GlobalInit = @convention(c) (Int) -> Int32
        guard let globalInit = symbol("curl_global_init", as: GlobalInit.self),
          let easyInit = symbol("curl_easy_init", as: (@convention(c) () -> Handle?).self),
          let setLong = symbol(
            "curl_easy_setopt", as: (@convention(c) (Handle?, Int32, Int) -> Int32).self),
          let setPointer = symbol(
            "curl_easy_setopt",
            as: (@convention(c) (Handle?, Int32, UnsafeRawPointer?) -> Int32).self),
          let perform = symbol("curl_easy_perform", as: (@convention(c) (Handle?) -> Int32).self),
          let getInfo = symbol(
            "curl_easy_getinfo",
            as: (@convention(c) (Handle?, Int32, UnsafeMutableRawPointer?) -> Int32).self),
          let cleanup = symbol("curl_easy_cleanup", as: (@convention(c) (Handle?) -> Void).self),
          let strerror = symbol(
            "curl_easy_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self),
          let listAppend = symbol(
            "curl_slist_append",
            as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?).self),
          let listFree = symbol(
            "curl_slist_free_all", as: (@convention(c) (OpaquePointer?) -> Void).self)
        else { return nil }
        // CURL_GLOBAL_DEFAULT, once, before any other thread uses libcurl.
        guard globalInit(3) == 0 else { return nil }
        return Library(
          easyInit: easyInit, setLong: setLong, setPointer: setPointer, perform: perform,
          getInfo: getInfo, cleanup: cleanup, strerror: strerror, listAppend: listAppend,
          listFree: listFree)
      }

      // Options and infos, as curl.h numbers them.
      private static let optionWriteData: Int32 = 10001
      private static let optionURL: Int32 = 10002
      private static let optionErrorBuffer: Int32 = 10010
      private static let optionUserAgent: Int32 = 10018
      private static let optionHeaders: Int32 = 10023
      private static let optionFollowLocation: Int32 = 52
      private static let optionMaxRedirects: Int32 = 68
      private static let optionNoSignal: Int32 = 99
      private static let optionTimeoutMilliseconds: Int32 = 155
      private static let optionProtocols: Int32 = 181
      private static let optionRedirectProtocols: Int32 = 182
      private static let optionAcceptEncoding: Int32 = 10102
      private static let optionWriteFunction: Int32 = 20011
      private static let infoResponseCode: Int32 = 0x20_0002
      private static let infoContentType: Int32 = 0x10_0012
      /// CURLPROTO_HTTP | CURLPROTO_HTTPS.
      private static let httpAndHTTPS = 3
      /// CURL_ERROR_SIZE.
      private static let errorBufferSize = 256

      /// The body as it arrives.
      private final class Body {
        var bytes: [UInt8] = []
      }

      func get(_ url: URL, accept: String, timeout: Double) -> Result {
        guard let easy = easyInit() else {
          return .failure(code: 2, reason: "libcurl could not start a transfer")
        }
        defer { cleanup(easy) }
        let body = Body()
        var headers: OpaquePointer?
        defer { listFree(headers) }
        headers = listAppend(headers, "Accept: \(accept)")
        var errorBuffer = [CChar](repeating: 0, count: Self.errorBufferSize)
        let code: Int32 = withExtendedLifetime(body) {
          errorBuffer.withUnsafeMutableBufferPointer { errors in
            url.absoluteString.withCString { urlText in
              _ = setPointer(easy, Self.optionURL, urlText)
              _ = setPointer(easy, Self.optionErrorBuffer, errors.baseAddress)
              _ = setPointer(easy, Self.optionHeaders, UnsafeRawPointer(headers))
              _ = setPointer(easy, Self.optionUserAgent, "replay")
              // "": every encoding libcurl decodes (URLSession decodes gzip too).
              _ = setPointer(easy, Self.optionAcceptEncoding, "")
              _ = setLong(easy, Self.optionFollowLocation, 1)
              _ = setLong(easy, Self.optionMaxRedirects, 10)
              _ = setLong(easy, Self.optionProtocols, Self.httpAndHTTPS)
              _ = setLong(easy, Self.optionRedirectProtocols, Self.httpAndHTTPS)
              // No SIGALRM for DNS timeouts: the process's signals are its own.
              _ = setLong(easy, Self.optionNoSignal, 1)
              _ = setLong(
                easy, Self.optionTimeoutMilliseconds, Int(min(max(timeout, 0.001), 1e9) * 1000))
              let write:
                @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?)
                  -> Int = { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let body = Unmanaged<Body>.fromOpaque(context).takeUnretainedValue()
                    let length = size * count
                    data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                      body.bytes.append(
                        contentsOf: UnsafeBufferPointer(start: bytes, count: length))
                    }
                    return length
                  }
              _ = setPointer(
                easy, Self.optionWriteFunction, unsafeBitCast(write, to: UnsafeRawPointer.self))
              _ = setPointer(
                easy, Self.optionWriteData,
                UnsafeRawPointer(Unmanaged.passUnretained(body).toOpaque()))
              return perform(easy)
            }
          }
        }
        guard code == 0 else {
          let detail =
            errorBuffer.first != 0
            ? String(
              decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : strerror(code).map { String(cString: $0) } ?? ""
          return .failure(code: code, reason: detail)
        }
        var status = 0
        _ = getInfo(easy, Self.infoResponseCode, &status)
        var contentType: UnsafePointer<CChar>?
        _ = getInfo(easy, Self.infoContentType, &contentType)
        return .response(
          status: status, contentType: contentType.map { String(cString: $0) }, body: body.bytes)
      }
    }
  }
#endif
