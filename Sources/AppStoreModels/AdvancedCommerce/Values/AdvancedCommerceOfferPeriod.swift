/// The period of an Advanced Commerce offer, as an ISO 8601 duration.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct AdvancedCommerceOfferPeriod: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Three days.
    public static let p3D = AdvancedCommerceOfferPeriod(rawValue: "P3D")

    /// One week.
    public static let p1W = AdvancedCommerceOfferPeriod(rawValue: "P1W")

    /// Two weeks.
    public static let p2W = AdvancedCommerceOfferPeriod(rawValue: "P2W")

    /// One month.
    public static let p1M = AdvancedCommerceOfferPeriod(rawValue: "P1M")

    /// Two months.
    public static let p2M = AdvancedCommerceOfferPeriod(rawValue: "P2M")

    /// Three months.
    public static let p3M = AdvancedCommerceOfferPeriod(rawValue: "P3M")

    /// Six months.
    public static let p6M = AdvancedCommerceOfferPeriod(rawValue: "P6M")

    /// Nine months.
    public static let p9M = AdvancedCommerceOfferPeriod(rawValue: "P9M")

    /// One year.
    public static let p1Y = AdvancedCommerceOfferPeriod(rawValue: "P1Y")

    public static let known: [AdvancedCommerceOfferPeriod] = [
        .p3D, .p1W, .p2W, .p1M, .p2M, .p3M, .p6M, .p9M, .p1Y,
    ]
}
