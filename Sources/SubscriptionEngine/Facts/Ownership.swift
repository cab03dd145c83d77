import Foundation

/// Whether the customer bought a product or received it through Family Sharing.
public enum Ownership: String, Sendable, Hashable, Codable, CaseIterable {
    /// The customer bought it.
    case purchased
    /// A family member bought it and shares it with the customer.
    case familyShared

    /// Reads Apple's `PURCHASED` / `FAMILY_SHARED` (any case); anything else is `nil`.
    public init?(appleValue: String) {
        switch appleValue.uppercased() {
        case "PURCHASED": self = .purchased
        case "FAMILY_SHARED": self = .familyShared
        default: return nil
        }
    }
}
