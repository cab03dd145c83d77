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
///
/// Several hosts, as libpq takes them (`postgres://u@db1:5432,db2:5432/app` or
/// `?host=db1,db2&port=5432,5433`), with `target_session_attrs=read-write` (or `primary`): the
/// store writes to whichever of them accepts writes, and finds the new one by itself after a
/// failover (``PostgresBackend``). `any` (the default) takes the first host that answers.
struct PostgresSettings: Sendable {
    /// One server the URL names.
    struct Host: Sendable, Equatable {
        var host: String
        var port: Int
        /// The Unix socket, when the host is a directory.
        var socketPath: String?
    }

    /// What a host must be to be used: libpq's `target_session_attrs`.
    enum TargetSession: String, Sendable {
        /// The first host that answers.
        case any
        /// A host that accepts writes (not a standby, not read-only).
        case readWrite = "read-write"
    }

    var host: String
    var port: Int
    /// The Unix socket to connect to, when the host is a directory.
    var socketPath: String?
    /// Every host the URL names, in its order (the first is ``host``, ``port``, ``socketPath``).
    var hosts: [Host]
    var targetSession: TargetSession
    var username: String
    var password: String?
    var database: String?
    var sslmode: String
    var tls: PostgresClient.Configuration.TLS
    var acquireTimeout: Duration
    /// Things worth a warning at startup (plaintext to another machine).
    var warnings: [String]

    static let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    init(url original: String) throws {
        // URLComponents takes one host: the others of a libpq host list are set aside here.
        let (text, listedHosts) = Self.settingAsideHostList(original)
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
        // Hosts and ports: the URL's list, or the `host` and `port` parameters' (comma-separated).
        var names: [(String, Int?)] = try listedHosts?.map(Self.hostAndPort) ?? [(host, components.port)]
        if query.contains(where: { $0.name == "host" }) {
            names = host.split(separator: ",", omittingEmptySubsequences: false).map { (String($0), nil) }
        }
        if let value = query.first(where: { $0.name == "port" })?.value {
            let ports = try value.split(separator: ",", omittingEmptySubsequences: false).map { text in
                guard let number = Int(text), (1...65535).contains(number) else {
                    throw StoreError(code: .invalidLocation, message: "port must be a number from 1 to 65535")
                }
                return number
            }
            guard ports.count == 1 || ports.count == names.count else {
                throw StoreError(code: .invalidLocation, message: "port names \(ports.count) ports for \(names.count) hosts")
            }
            names = names.enumerated().map { ($0.element.0, ports.count == 1 ? ports[0] : ports[$0.offset]) }
        }
        guard names.allSatisfy({ !$0.0.isEmpty }) else {
            throw StoreError(code: .invalidLocation, message: "not a postgres:// URL: a host of its list is empty")
        }
        hosts = names.map { name, port in
            let port = port ?? 5432
            let socket = name.hasPrefix("/") ? (name.hasSuffix("/") ? name : name + "/") + ".s.PGSQL.\(port)" : nil
            return Host(host: name, port: port, socketPath: socket)
        }
        self.host = hosts[0].host
        port = hosts[0].port
        socketPath = hosts[0].socketPath
        let session = query.first { $0.name == "target_session_attrs" }?.value ?? "any"
        switch session {
        case "any": targetSession = .any
        case "read-write", "primary": targetSession = .readWrite
        default:
            throw StoreError(
                code: .invalidLocation, message: "target_session_attrs '\(session)' is not one of any, read-write, primary")
        }
        username = components.user?.removingPercentEncoding ?? "postgres"
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path
        let loopback = hosts.allSatisfy { $0.socketPath != nil || Self.isLoopback($0.host) }
        let mode = query.first { $0.name == "sslmode" }?.value ?? (loopback ? "prefer" : "require")
        guard Self.modes.contains(mode) else {
            throw StoreError(
                code: .invalidLocation,
                message: "sslmode '\(mode)' is not one of \(Self.modes.joined(separator: ", "))")
        }
        if hosts.contains(where: { $0.socketPath != nil }), !["disable", "allow", "prefer"].contains(mode) {
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

    /// `text` with a libpq host list (`h1:p1,h2:p2`) in its authority replaced by its first
    /// host, and the list; `text` itself and nil when it names one host.
    static func settingAsideHostList(_ text: String) -> (String, [String]?) {
        guard let schemeEnd = text.range(of: "://") else { return (text, nil) }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let list = authority[hostStart...]
        guard list.contains(",") else { return (text, nil) }
        let items = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return (String(text[..<hostStart]) + items[0] + String(text[authorityEnd...]), items)
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port` of a host list.
    static func hostAndPort(_ item: String) throws -> (String, Int?) {
        var host = Substring(item)
        var port: Int?
        if let colon = item.lastIndex(of: ":"), !item[colon...].contains("]"), item.hasPrefix("[") || !item[..<colon].contains(":") {
            guard let number = Int(item[item.index(after: colon)...]), (1...65535).contains(number) else {
                throw StoreError(code: .invalidLocation, message: "port must be a number from 1 to 65535")
            }
            port = number
            host = item[..<colon]
        }
        return (String(host.removingPercentEncoding ?? String(host)), port)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
