import Foundation
import PostgresNIO

/// What a `postgres://user:password@host:port/database?sslmode=…&connect_timeout=…` URL asks
/// for, checked.
///
/// As with libpq, `host` and `port` may also be given as parameters, and a host that is a
/// directory (`postgres://user@/database?host=/run/postgresql`, or the directory percent-encoded
/// as the URL's host) means the server's Unix socket in that directory, `.s.PGSQL.<port>`: no TCP
/// and no TLS, so `sslmode` may only be `disable`, `allow` or `prefer` there.
///
/// `sslmode` is one of libpq's values: `disable`, `allow` and `prefer` (TLS when the server
/// offers it, else plaintext), `require`, `verify-ca` and `verify-full` (TLS or nothing, the
/// certificate verified against the system's roots). An unknown value is an error, never a
/// silent fallback. Without one, a loopback host gets `prefer` and any other host `require`;
/// plaintext to a non-loopback host is allowed only when asked for, with a ``warnings`` entry.
/// `connect_timeout` (seconds, default 5) bounds connecting and waiting for a connection.
struct PostgresSettings: Sendable {
    var host: String
    var port: Int
    /// The Unix socket to connect to, when the host is a directory.
    var socketPath: String?
    var username: String
    var password: String?
    var database: String?
    var sslmode: String
    var tls: PostgresClient.Configuration.TLS
    var acquireTimeout: Duration
    /// Things worth a warning at startup (plaintext to another machine).
    var warnings: [String]

    static let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    init(url text: String) throws {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql"
        else {
            throw StoreError(code: .invalidLocation, message: "not a postgres:// URL")
        }
        let query = components.queryItems ?? []
        guard
            let host = query.first(where: { $0.name == "host" })?.value ?? components.percentEncodedHost?.removingPercentEncoding,
            !host.isEmpty
        else {
            throw StoreError(code: .invalidLocation, message: "not a postgres:// URL: it names no host")
        }
        self.host = host
        if let value = query.first(where: { $0.name == "port" })?.value {
            guard let number = Int(value), (1...65535).contains(number) else {
                throw StoreError(code: .invalidLocation, message: "port must be a number from 1 to 65535")
            }
            port = number
        } else {
            port = components.port ?? 5432
        }
        socketPath = host.hasPrefix("/") ? (host.hasSuffix("/") ? host : host + "/") + ".s.PGSQL.\(port)" : nil
        username = components.user?.removingPercentEncoding ?? "postgres"
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path
        let loopback = socketPath != nil || Self.isLoopback(host)
        let mode = query.first { $0.name == "sslmode" }?.value ?? (loopback ? "prefer" : "require")
        guard Self.modes.contains(mode) else {
            throw StoreError(
                code: .invalidLocation,
                message: "sslmode '\(mode)' is not one of \(Self.modes.joined(separator: ", "))")
        }
        if socketPath != nil, !["disable", "allow", "prefer"].contains(mode) {
            throw StoreError(
                code: .invalidLocation, message: "sslmode '\(mode)' asks for TLS, which a Unix socket (host \(host)) does not carry")
        }
        sslmode = mode
        var verifying = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case "disable": tls = .disable
        case "allow", "prefer": tls = .prefer(verifying)
        case "require":
            // libpq's `require` encrypts without checking who answers.
            verifying.certificateVerification = .none
            tls = .require(verifying)
        default: tls = .require(verifying)
        }
        warnings = []
        if !loopback, ["disable", "allow", "prefer"].contains(mode) {
            warnings.append("PostgreSQL at \(host) with sslmode=\(mode): the connection may be plaintext; use sslmode=verify-full")
        }
        if let value = query.first(where: { $0.name == "connect_timeout" })?.value {
            guard let seconds = Double(value), seconds > 0, seconds <= 600 else {
                throw StoreError(code: .invalidLocation, message: "connect_timeout must be a number of seconds from 0 to 600")
            }
            acquireTimeout = .milliseconds(Int64(seconds * 1000))
        } else {
            acquireTimeout = .seconds(5)
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
