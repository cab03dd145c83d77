import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to the server on loopback, for behaving like a slow or silent
/// client. Blocking reads run on a thread of their own so they never hold the cooperative
/// pool the server needs.
final class RawConnection: Sendable {
    let descriptor: Int32

    /// A read timeout for an answer the server owes: long enough for a loaded machine, short
    /// enough that a broken server still ends the test.
    static let patientSeconds = 120

    /// Connects to 127.0.0.1:`port`; reads give up after `readTimeout` seconds.
    init(port: Int, readTimeout: Int = 20) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the server sent until it closed the connection (`closed`), or until a read timed
    /// out with the connection still open.
    func readUntilClosed() async -> (text: String, closed: Bool) {
        await withCheckedContinuation { continuation in
            let thread = Thread { [descriptor] in
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                var closed = false
                while true {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count == 0 {
                        closed = true
                        break
                    }
                    if count < 0 {
                        closed = errno != EAGAIN && errno != EWOULDBLOCK
                        break
                    }
                    received += buffer[0..<count]
                }
                continuation.resume(returning: (String(decoding: received, as: UTF8.self), closed))
            }
            thread.start()
        }
    }

    /// The first bytes the server sends, or nothing when a read times out.
    func readSome() async -> String {
        await withCheckedContinuation { continuation in
            let thread = Thread { [descriptor] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                continuation.resume(returning: count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "")
            }
            thread.start()
        }
    }

    /// Closes the sending side.
    func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }
}
