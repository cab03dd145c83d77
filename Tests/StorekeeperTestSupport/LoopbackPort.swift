import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports for servers that tests start as separate processes.
public enum LoopbackPort {
    /// A TCP port nothing listens on now (bound to 0 on 127.0.0.1 and released; another process
    /// may take it before the caller binds it).
    public static func free() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return bound(fd)
    }

    /// A port that refuses connections for as long as the returned object lives: bound on
    /// 127.0.0.1 and never listened on, so no other server can take it meanwhile (a port freed by
    /// stopping a server may be taken by the next server another test starts).
    public final class Refusing: Sendable {
        public let port: Int
        private let descriptor: Int32

        public init() {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            port = LoopbackPort.bound(descriptor)
        }

        deinit { close(descriptor) }
    }

    /// Binds `fd` to a port of the kernel's choosing on 127.0.0.1 and returns the port.
    private static func bound(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
