import Foundation

/// A value the app keeps about one of its customers (RevenueCat's subscriber attributes:
/// `$email`, `$displayName`, the app's own keys): text the app sent, shown to operators and
/// backends, never used to decide what the customer is entitled to.
public struct CustomerAttribute: Sendable, Hashable, Codable {
    /// The attribute's name: 1 to 256 bytes.
    public var key: String
    /// Its value (at most ``maximumValueBytes`` bytes); `nil` once the app removed it.
    public var value: String?
    /// When the app set it (the client's clock): of two writes of one key, the later wins.
    public var updatedAt: Date

    public init(key: String, value: String?, updatedAt: Date) {
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
    }

    /// The longest key, in UTF-8 bytes.
    public static let maximumKeyBytes = 256
    /// The longest value, in UTF-8 bytes.
    public static let maximumValueBytes = 4096
    /// The most attributes one customer keeps; a write that would keep more is refused.
    public static let maximumPerCustomer = 500
}
