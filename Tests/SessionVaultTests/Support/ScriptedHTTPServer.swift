// Test support only: a tiny scripted HTTP/1.1 server on raw POSIX sockets, so tests can drive
// URLSession against real TCP behaviour (delays, dropped connections, hangs, clock skew)
// without third-party dependencies. Never shipped.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Setup failures; `errno` is captured immediately after the failing call.
enum ScriptedHTTPServerError: Error, Equatable {
    case socket(errno: Int32)
    case bind(errno: Int32)
    case listen(errno: Int32)
    case getsockname(errno: Int32)
    case pipe(errno: Int32)
    case invalidBaseURL
}

/// One scripted answer. Headers are ordered (so e.g. several `Set-Cookie` lines are possible).
/// `Content-Length` and `Date` are added unless the script sets them (case-insensitive), so a
/// test can fake a skewed clock or a lying length. `Connection: close` is always sent.
struct ScriptedResponse: Sendable {
    enum Action: Sendable {
        case respond
        /// Close the socket without sending a single byte.
        case dropConnection
        /// Never answer; the connection is released when the server stops or the client gives up.
        case hang
    }

    var status = 200
    var headers: [(String, String)] = []
    var body = Data()
    /// Seconds to wait before acting (also applies to `.dropConnection`); cut short by `stop()`.
    var delay: TimeInterval = 0
    var action = Action.respond
    /// When set, the answer waits (after any delay) until the test opens the gate.
    var gate: ResponseGate?

    static func json(
        status: Int = 200, _ body: String, headers: [(String, String)] = [],
        delay: TimeInterval = 0
    ) -> ScriptedResponse {
        let hasType = headers.contains { $0.0.caseInsensitiveCompare("Content-Type") == .orderedSame }
        let type: [(String, String)] = hasType ? [] : [("Content-Type", "application/json")]
        return ScriptedResponse(status: status, headers: type + headers, body: Data(body.utf8), delay: delay)
    }

    /// This response, held back until `gate` is opened.
    func held(by gate: ResponseGate) -> ScriptedResponse {
        var copy = self
        copy.gate = gate
        return copy
    }

    static let drop = ScriptedResponse(action: .dropConnection)
    static let hang = ScriptedResponse(action: .hang)
}

/// A request as the server saw it. Recorded once its body has been read, before any delay,
/// so dropped and hung requests are recorded too.
struct RecordedRequest: Sendable {
    var method: String
    /// Request target as sent, including the query string.
    var path: String
    var headers: [(name: String, value: String)]
    var body: Data

    /// Case-insensitive header lookup (first match).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var bodyString: String { String(decoding: body, as: UTF8.self) }
}

final class ScriptedHTTPServer: Sendable {
    let port: Int
    let baseURL: URL
    // Threads retain the engine, not this object, so dropping the server runs deinit (and stop()).
    private let engine: Engine

    init() throws {
        let (fd, port) = try Self.makeListener()
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            close(fd)
            throw ScriptedHTTPServerError.invalidBaseURL
        }
        engine = try Engine(listenFD: fd)
        self.port = port
        baseURL = url
        engine.start()
    }

    deinit { engine.stop() }

    func enqueue(_ response: ScriptedResponse) { engine.locked { $0.queue.append(response) } }

    /// Answers each request when the queue is empty, before `defaultResponse`: a server with
    /// state of its own (`RotatingTokenServer`). Runs under the server's lock: it must not call
    /// back into the server.
    var responder: (@Sendable (RecordedRequest) -> ScriptedResponse)? {
        get { engine.locked { $0.responder } }
        set { engine.locked { $0.responder = newValue } }
    }

    /// Used whenever the queue is empty. Defaults to a 404 so unscripted calls stand out.
    var defaultResponse: ScriptedResponse {
        get { engine.locked { $0.defaultResponse } }
        set { engine.locked { $0.defaultResponse = newValue } }
    }

    var requests: [RecordedRequest] { engine.locked { $0.requests } }
    var requestCount: Int { engine.locked { $0.requests.count } }

    /// Waits until the server has seen at least `count` requests (the event a test synchronizes
    /// on before it pauses or kills the client); false if that never happens within `timeout`.
    func waitForRequests(_ count: Int, timeout: TimeInterval = 60) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while requestCount < count && Date() < deadline {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return requestCount >= count
    }

    /// `.hang` requests this server holds unanswered whose client has not closed the connection:
    /// the client is still waiting for them. Looked at on the sockets at the moment of the call.
    var openHangingRequests: Int { engine.openHangingRequests() }

    /// Closes the listener (connections are refused afterwards) and releases hung or delayed
    /// connections. Idempotent; returns once the listening socket is closed.
    func stop() { engine.stop() }

    /// RFC 7231 IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT" (use for skewed `Date` headers).
    static func httpDate(_ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let clock = String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
        return "\(days[Int(parts.tm_wday)]), " + String(format: "%02d ", parts.tm_mday)
            + months[Int(parts.tm_mon)] + String(format: " %04d ", parts.tm_year + 1900) + clock + " GMT"
    }

    private static func makeListener() throws -> (fd: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ScriptedHTTPServerError.socket(errno: errno) }
        do {
            // Tests create many short-lived servers; don't let TIME_WAIT leftovers get in the way.
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var addr = sockaddr_in()
            #if canImport(Darwin)
            addr.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = 0  // ephemeral: parallel tests never collide
            addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1 only, never exposed
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            guard bound == 0 else { throw ScriptedHTTPServerError.bind(errno: errno) }
            guard listen(fd, 128) == 0 else { throw ScriptedHTTPServerError.listen(errno: errno) }
            let named = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw ScriptedHTTPServerError.getsockname(errno: errno) }
            return (fd, Int(UInt16(bigEndian: addr.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }
}

/// Sockets, threads and locked state. Lives as long as any connection thread still runs.
/// Nested so the short name cannot clash with types elsewhere in the test target.
extension ScriptedHTTPServer {
    private final class Engine: @unchecked Sendable {  // all mutable state is guarded by `lock`
        struct State {
            var queue: [ScriptedResponse] = []
            var defaultResponse = ScriptedResponse(status: 404, body: Data("no scripted response\n".utf8))
            var responder: (@Sendable (RecordedRequest) -> ScriptedResponse)?
            var requests: [RecordedRequest] = []
            var stopped = false
            /// The sockets of `.hang` requests being held; removed before they are closed.
            var hanging: Set<Int32> = []
        }

        private let lock = NSLock()
        private var state = State()
        private let listenFD: Int32
        // Self-pipe: one byte written on stop() makes the read end readable forever, which wakes
        // every poll() at once (accept loop, reads, delays, hangs) without touching their sockets.
        private let wakeRead: Int32
        private let wakeWrite: Int32
        private let acceptLoopDone = DispatchSemaphore(value: 0)

        init(listenFD: Int32) throws {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else {
                close(listenFD)
                throw ScriptedHTTPServerError.pipe(errno: errno)
            }
            self.listenFD = listenFD
            wakeRead = fds[0]
            wakeWrite = fds[1]
        }

        // Only reached after the accept loop and every connection thread have finished.
        deinit {
            close(wakeRead)
            close(wakeWrite)
        }

        /// How many `.hang` requests are held with the client's end still open, looked at now on
        /// the sockets themselves (an end of file already there counts as closed, even before
        /// the connection's thread has seen it).
        func openHangingRequests() -> Int {
            locked { state in
                state.hanging.filter { fd in
                    var ready = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
                    guard poll(&ready, 1, 0) > 0 else { return true }  // nothing arrived: open
                    var byte: UInt8 = 0
                    // Readable: either more bytes (still open) or the end of file (closed).
                    return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) != 0
                }.count
            }
        }

        func locked<T>(_ body: (inout State) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&state)
        }

        func start() {
            let thread = Thread { self.acceptLoop() }
            thread.name = "ScriptedHTTPServer.accept"
            thread.start()
        }

        func stop() {
            let first = locked { state in
                defer { state.stopped = true }
                return !state.stopped
            }
            if first {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
            // Every caller waits until the accept thread has closed the listener, then lets the
            // next caller through. Closing it here instead could race with accept() on a reused fd.
            acceptLoopDone.wait()
            acceptLoopDone.signal()
        }

        private func acceptLoop() {
            while waitReadable(listenFD) {
                let client = accept(listenFD, nil, nil)
                guard client >= 0 else {
                    usleep(1_000)  // EINTR/ECONNABORTED/EMFILE: retry without spinning hot
                    continue
                }
                // A dedicated thread, not GCD: hung handlers would otherwise pin Dispatch's
                // limited worker pool, which URLSession itself depends on.
                let thread = Thread { self.serve(client) }
                thread.name = "ScriptedHTTPServer.connection"
                thread.start()
            }
            close(listenFD)
            acceptLoopDone.signal()
        }

        private func serve(_ fd: Int32) {
            defer { close(fd) }
            // Before the close above (defers run in reverse): out of `hanging` first.
            defer { locked { _ = $0.hanging.remove(fd) } }
            #if canImport(Darwin)
            var one: Int32 = 1  // Darwin has no MSG_NOSIGNAL; a peer reset must not kill the test run
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            guard let request = readRequest(fd) else { return }
            let response = locked { state in
                state.requests.append(request)
                let response = state.queue.isEmpty ? (state.responder?(request) ?? state.defaultResponse) : state.queue.removeFirst()
                // Held from the moment the request is recorded: a test that has seen the request
                // counts this one (openHangingRequests) without a gap.
                if case .hang = response.action { state.hanging.insert(fd) }
                return response
            }
            if response.delay > 0 {
                _ = waitReadable(-1, timeoutMs: Int32(min(response.delay * 1000, Double(Int32.max))))
                if locked({ $0.stopped }) { return }
            }
            if let gate = response.gate {
                gate.wait(abandon: { locked { $0.stopped } })
                if locked({ $0.stopped }) { return }
            }
            switch response.action {
            case .dropConnection:
                return
            case .hang:
                drain(fd, timeoutMs: -1)
            case .respond:
                guard sendAll(fd, Self.serialize(response)) else { return }
                // Half-close, then read until the client closes: closing with unread input would
                // send a RST that can destroy the response before the client has read it.
                shutdown(fd, Int32(SHUT_WR))
                drain(fd, timeoutMs: 2_000)
            }
        }

        /// Reads the head up to CRLFCRLF, then exactly Content-Length body bytes.
        private func readRequest(_ fd: Int32) -> RecordedRequest? {
            var buffer = Data()
            let terminator = Data("\r\n\r\n".utf8)
            var found = buffer.range(of: terminator)
            while found == nil {
                guard buffer.count < 1 << 20, receive(fd, into: &buffer) else { return nil }
                found = buffer.range(of: terminator)
            }
            guard let headEnd = found else { return nil }
            let lines = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let requestLine = lines.first?.split(separator: " ") ?? []
            guard requestLine.count >= 2 else { return nil }
            var headers: [(name: String, value: String)] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.append(
                    (
                        String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                        String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                    ))
            }
            var request = RecordedRequest(
                method: String(requestLine[0]), path: String(requestLine[1]),
                headers: headers, body: Data())
            let chunked = request.header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
            let length = max(0, Int(request.header("Content-Length") ?? "") ?? 0)
            var body = Data(buffer[headEnd.upperBound...])
            // Clients that send this hold the body back until we answer (libcurl gives up waiting
            // after 1 s and sends anyway), so answering keeps uploads fast.
            if chunked || body.count < length, request.header("Expect")?.lowercased() == "100-continue" {
                guard sendAll(fd, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
            }
            if chunked {
                guard let decoded = readChunkedBody(fd, pending: body) else { return nil }
                request.body = decoded
                return request
            }
            while body.count < length {
                guard receive(fd, into: &body) else { return nil }
            }
            request.body = Data(body.prefix(length))
            return request
        }

        /// URLSession sends `httpBodyStream` bodies chunked. Extensions and trailers are ignored.
        private func readChunkedBody(_ fd: Int32, pending: Data) -> Data? {
            var buffer = pending  // always re-based to index 0 so offsets below are plain Ints
            var body = Data()
            while true {
                guard let lineEnd = buffer.range(of: Data("\r\n".utf8)) else {
                    guard buffer.count < 1 << 16, receive(fd, into: &buffer) else { return nil }
                    continue
                }
                let sizeLine = String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self)
                let sizeField = sizeLine.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
                guard let size = Int(sizeField, radix: 16), size >= 0 else { return nil }
                if size == 0 { return body }
                while buffer.count < lineEnd.upperBound + size + 2 {  // chunk data plus its CRLF
                    guard receive(fd, into: &buffer) else { return nil }
                }
                body.append(buffer[lineEnd.upperBound..<(lineEnd.upperBound + size)])
                buffer = Data(buffer[(lineEnd.upperBound + size + 2)...])
            }
        }

        private static func serialize(_ response: ScriptedResponse) -> Data {
            var headers = response.headers
            func addDefault(_ name: String, _ value: String) {
                if !headers.contains(where: { $0.0.caseInsensitiveCompare(name) == .orderedSame }) {
                    headers.append((name, value))
                }
            }
            addDefault("Content-Length", String(response.body.count))
            addDefault("Date", ScriptedHTTPServer.httpDate())
            // Not overridable: we serve one request per connection, and a client that believed
            // "keep-alive" would send its next request into a socket we are about to close.
            headers.removeAll { $0.0.caseInsensitiveCompare("Connection") == .orderedSame }
            headers.append(("Connection", "close"))
            var head = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            return Data((head + "\r\n").utf8) + response.body
        }

        private static func reasonPhrase(_ status: Int) -> String {
            let phrases = [
                200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
                403: "Forbidden", 404: "Not Found", 409: "Conflict", 429: "Too Many Requests",
                500: "Internal Server Error", 503: "Service Unavailable"
            ]
            return phrases[status] ?? "Status"  // clients ignore the phrase; only the code matters
        }

        /// Blocks until `fd` is readable (true) or the server stops / the timeout expires (false).
        /// Pass fd -1 to just sleep interruptibly: poll() ignores negative descriptors.
        private func waitReadable(_ fd: Int32, timeoutMs: Int32 = -1) -> Bool {
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            ]
            while true {
                let ready = poll(&fds, 2, timeoutMs)
                if ready < 0 && errno == EINTR { continue }
                return ready > 0 && fds[1].revents == 0 && fds[0].revents != 0
            }
        }

        /// Appends whatever arrives next; false on EOF, error or stop.
        private func receive(_ fd: Int32, into data: inout Data) -> Bool {
            guard waitReadable(fd) else { return false }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { return true }
            guard count > 0 else { return false }
            data.append(contentsOf: chunk[..<count])
            return true
        }

        /// Discards input until the peer closes, the server stops or `timeoutMs` passes idle.
        private func drain(_ fd: Int32, timeoutMs: Int32) {
            var scratch = [UInt8](repeating: 0, count: 4096)
            while waitReadable(fd, timeoutMs: timeoutMs), recv(fd, &scratch, scratch.count, 0) > 0 {}
        }

        private func sendAll(_ fd: Int32, _ data: Data) -> Bool {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)  // EPIPE instead of a process-killing SIGPIPE
            #else
            let flags: Int32 = 0
            #endif
            return data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return true }
                var offset = 0
                while offset < raw.count {
                    let sent = send(fd, base + offset, raw.count - offset, flags)
                    if sent < 0 && errno == EINTR { continue }
                    guard sent > 0 else { return false }
                    offset += sent
                }
                return true
            }
        }
    }
}
