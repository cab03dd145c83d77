/// Whether the app delivered a purchase that works (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct DeliveryStatusV1: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Delivered and working.
    public static let deliveredAndWorkingProperly = DeliveryStatusV1(rawValue: 0)

    /// Not delivered because of a quality issue.
    public static let didNotDeliverDueToQualityIssue = DeliveryStatusV1(rawValue: 1)

    /// The wrong item was delivered.
    public static let deliveredWrongItem = DeliveryStatusV1(rawValue: 2)

    /// Not delivered because of a server outage.
    public static let didNotDeliverDueToServerOutage = DeliveryStatusV1(rawValue: 3)

    /// Not delivered because of an in-game currency change.
    public static let didNotDeliverDueToIngameCurrencyChange = DeliveryStatusV1(rawValue: 4)

    /// Not delivered for another reason.
    public static let didNotDeliverForOtherReason = DeliveryStatusV1(rawValue: 5)

    public static let known: [DeliveryStatusV1] = [
        .deliveredAndWorkingProperly, .didNotDeliverDueToQualityIssue, .deliveredWrongItem,
        .didNotDeliverDueToServerOutage, .didNotDeliverDueToIngameCurrencyChange,
        .didNotDeliverForOtherReason,
    ]
}
