/// Whether the customer bought the purchase or has it through Family Sharing (`inAppOwnershipType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct InAppOwnershipType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Available through Family Sharing.
    public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")

    /// Purchased by the customer.
    public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")

    public static let known: [InAppOwnershipType] = [
        .familyShared, .purchased,
    ]
}
