import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP forwarder in front of a real server (PostgreSQL), which a test can cut — every
/// open connection dropped and new ones refused — and restore, to play a database outage
/// without touching the database. Blocking sockets on threads of their own.
final class TCPForwarder: Sendable {
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var cut = false
        var stopped = false
        var sockets: Set<Int32> = []
    }

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let descriptor = socket(AF_INET, Self.streamType, 0)
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: actual.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// A forwarder in front of the PostgreSQL of `url`, and `url` pointed at it with a connect
    /// timeout of `connectTimeout` seconds (so a cut is noticed in seconds).
    static func inFront(ofPostgres url: String, connectTimeout: Int = 2) throws -> (forwarder: TCPForwarder, url: String) {
        guard var components = URLComponents(string: url) else { throw POSIXError(.EINVAL) }
        let forwarder = try TCPForwarder(upstreamPort: components.port ?? 5432)
        components.port = forwarder.port
        components.queryItems =
            (components.queryItems ?? []).filter { $0.name != "connect_timeout" } + [
                URLQueryItem(name: "connect_timeout", value: "\(connectTimeout)")
            ]
        guard let proxied = components.string else {
            forwarder.stop()
            throw POSIXError(.EINVAL)
        }
        return (forwarder, proxied)
    }

    /// Drops every open connection and refuses new ones until ``restore()``.
    func cut() {
        let open = state.withLock { state -> Set<Int32> in
            state.cut = true
            defer { state.sockets = [] }
            return state.sockets
        }
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Forwards again.
    func restore() { state.withLock { $0.cut = false } }

    /// Stops listening and drops everything.
    func stop() {
        cut()
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let (cut, stopped) = state.withLock { ($0.cut, $0.stopped) }
            if stopped {
                close(client)
                return
            }
            if cut {
                close(client)
                continue
            }
            let upstream = socket(AF_INET, Self.streamType, 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            state.withLock { $0.sockets.formUnion([client, upstream]) }
            Thread { [self] in pump(from: client, to: upstream) }.start()
            Thread { [self] in pump(from: upstream, to: client) }.start()
        }
    }

    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            if count <= 0 { break }
            if send(destination, buffer, count, Int32(MSG_NOSIGNAL)) <= 0 { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
        state.withLock { $0.sockets.subtract([source, destination]) }
    }

    private static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
