import Foundation

/// Another name under which a customer is known: the app's own user id is the customer id,
/// and these link Apple's identifiers to it.
///
/// An alias belongs to at most one customer of an app; linking it to a second customer fails
/// with ``StoreError/Code/aliasConflict``. That is what refuses a transaction replayed by
/// another account.
public struct CustomerAlias: Sendable, Hashable, Codable {
    /// What kind of identifier ``value`` is.
    public var kind: Kind
    /// The identifier.
    public var value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// The identifiers a customer may be known by.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// A subscription chain's or a purchase's original transaction id.
        public static let originalTransactionId = Kind(rawValue: "originalTransactionId")
        /// The UUID the app set as `appAccountToken` when purchasing.
        public static let appAccountToken = Kind(rawValue: "appAccountToken")
        /// Another user id of the app for the same person (an account merge).
        public static let appUserId = Kind(rawValue: "appUserId")
    }

    /// An original transaction id alias.
    public static func originalTransactionId(_ value: String) -> CustomerAlias {
        CustomerAlias(kind: .originalTransactionId, value: value)
    }

    /// An `appAccountToken` alias, normalized to lower case as Apple's UUIDs compare.
    public static func appAccountToken(_ value: String) -> CustomerAlias {
        CustomerAlias(kind: .appAccountToken, value: value.lowercased())
    }
}
