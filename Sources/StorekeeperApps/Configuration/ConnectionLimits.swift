import Foundation

/// Limits that keep slow or numerous clients from holding the server: how many connections
/// are accepted at once (the rest wait in the kernel's backlog), how long an idle connection
/// stays open, how long a request may take to send its head and its body, and how large its
/// head may be.
public struct ConnectionLimits: Sendable, Codable, Hashable {
    /// Open connections accepted at once.
    public var maximumConnections: Int
    /// Seconds a connection may sit idle (between requests, or before a request's head is
    /// complete) before it is closed.
    public var idleTimeoutSeconds: Double
    /// Seconds a request may take to send its whole body; slower ones get 408.
    public var bodyTimeoutSeconds: Double
    /// Seconds a new connection may take to send its first request's head (a later request's
    /// head gets the idle timeout from the previous response); slower connections are closed,
    /// however steadily their bytes trickle in.
    public var headTimeoutSeconds: Double
    /// The largest request head accepted, in bytes (any one header line and all together);
    /// a larger one closes the connection.
    public var maximumHeaderBytes: Int

    public init(
        maximumConnections: Int = 1024, idleTimeoutSeconds: Double = 30, bodyTimeoutSeconds: Double = 15,
        headTimeoutSeconds: Double = 10, maximumHeaderBytes: Int = 32 * 1024
    ) {
        self.maximumConnections = maximumConnections
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
        self.headTimeoutSeconds = headTimeoutSeconds
        self.maximumHeaderBytes = maximumHeaderBytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ConnectionLimits()
        maximumConnections = try container.decodeIfPresent(Int.self, forKey: .maximumConnections) ?? defaults.maximumConnections
        idleTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .idleTimeoutSeconds) ?? defaults.idleTimeoutSeconds
        bodyTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .bodyTimeoutSeconds) ?? defaults.bodyTimeoutSeconds
        headTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .headTimeoutSeconds) ?? defaults.headTimeoutSeconds
        maximumHeaderBytes = try container.decodeIfPresent(Int.self, forKey: .maximumHeaderBytes) ?? defaults.maximumHeaderBytes
    }

    package func validate() throws {
        guard (1...1_000_000).contains(maximumConnections) else {
            throw ConfigurationError("connections.maximumConnections must be 1 to 1000000")
        }
        guard idleTimeoutSeconds > 0, bodyTimeoutSeconds > 0, headTimeoutSeconds > 0 else {
            throw ConfigurationError("connections.idleTimeoutSeconds, bodyTimeoutSeconds and headTimeoutSeconds must be positive")
        }
        guard (1024...1_048_576).contains(maximumHeaderBytes) else {
            throw ConfigurationError("connections.maximumHeaderBytes must be 1024 to 1048576")
        }
    }
}
