/// How an offer charges the customer (`offerDiscountType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct OfferDiscountType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A free trial.
    public static let freeTrial = OfferDiscountType(rawValue: "FREE_TRIAL")

    /// A reduced price for each period, paid period by period.
    public static let payAsYouGo = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")

    /// A reduced price for the whole offer duration, paid once.
    public static let payUpFront = OfferDiscountType(rawValue: "PAY_UP_FRONT")

    /// A one-time discount (offer codes for in-app purchases).
    public static let oneTime = OfferDiscountType(rawValue: "ONE_TIME")

    public static let known: [OfferDiscountType] = [
        .freeTrial, .payAsYouGo, .payUpFront, .oneTime,
    ]
}
