import Foundation

/// Limits that keep slow or numerous clients from holding the server: how many connections
/// are accepted at once (the rest wait in the kernel's backlog), how long an idle connection
/// stays open, and how long a request may take to send its body.
public struct ConnectionLimits: Sendable, Codable, Hashable {
    /// Open connections accepted at once.
    public var maximumConnections: Int
    /// Seconds a connection may sit idle (between requests, or before a request's head is
    /// complete) before it is closed.
    public var idleTimeoutSeconds: Double
    /// Seconds a request may take to send its whole body; slower ones get 408.
    public var bodyTimeoutSeconds: Double

    public init(maximumConnections: Int = 1024, idleTimeoutSeconds: Double = 30, bodyTimeoutSeconds: Double = 15) {
        self.maximumConnections = maximumConnections
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ConnectionLimits()
        maximumConnections = try container.decodeIfPresent(Int.self, forKey: .maximumConnections) ?? defaults.maximumConnections
        idleTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .idleTimeoutSeconds) ?? defaults.idleTimeoutSeconds
        bodyTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .bodyTimeoutSeconds) ?? defaults.bodyTimeoutSeconds
    }

    func validate() throws {
        guard (1...1_000_000).contains(maximumConnections) else {
            throw ConfigurationError("connections.maximumConnections must be 1 to 1000000")
        }
        guard idleTimeoutSeconds > 0, bodyTimeoutSeconds > 0 else {
            throw ConfigurationError("connections.idleTimeoutSeconds and bodyTimeoutSeconds must be positive")
        }
    }
}
