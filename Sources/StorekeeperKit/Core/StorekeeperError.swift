import Foundation

/// What went wrong talking to the server.
public struct StorekeeperError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No connection, a timeout, a refused or reset socket.
        public static let network = Code(rawValue: "network")
        /// The server's certificate holds none of the configured pins: nothing was sent.
        public static let pinMismatch = Code(rawValue: "pin_mismatch")
        /// The server answered with an error (``StorekeeperError/status``).
        public static let server = Code(rawValue: "server")
        /// The answer is not what the server sends (bad JSON, a signature that does not verify).
        public static let invalidAnswer = Code(rawValue: "invalid_answer")
        /// No server answer and no usable cache (none, expired, tampered with, another customer's).
        public static let noCustomerInfo = Code(rawValue: "no_customer_info")
        /// The configuration is unusable (a malformed pin or public key).
        public static let configuration = Code(rawValue: "configuration")
        /// The device's store failed.
        public static let store = Code(rawValue: "store")
    }

    public var code: Code
    public var message: String
    /// The HTTP status, for ``Code/server``.
    public var status: Int?
    /// The server's error code (`error.code` of its JSON body), for ``Code/server``.
    public var serverCode: String?

    public init(_ code: Code, _ message: String, status: Int? = nil, serverCode: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
    }

    public var description: String {
        status.map { "\(code) \($0)\(serverCode.map { " \($0)" } ?? ""): \(message)" } ?? "\(code): \(message)"
    }

    /// Whether trying again later may succeed (the network, a timeout, 408, 429, 5xx).
    public var isTransient: Bool {
        switch code {
        case .network: return true
        case .server: return status.map { $0 == 408 || $0 == 429 || $0 >= 500 } ?? true
        default: return false
        }
    }
}
