/// Why an Advanced Commerce offer is given.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceOfferReason: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// To acquire a new customer.
    public static let acquisition = AdvancedCommerceOfferReason(rawValue: "ACQUISITION")

    /// To win back a former customer.
    public static let winBack = AdvancedCommerceOfferReason(rawValue: "WIN_BACK")

    /// To retain a current customer.
    public static let retention = AdvancedCommerceOfferReason(rawValue: "RETENTION")

    public static let known: [AdvancedCommerceOfferReason] = [
        .acquisition, .winBack, .retention,
    ]
}
