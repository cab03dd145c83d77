/// The kind of offer applied to a transaction or renewal (`offerType`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct OfferType: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// An introductory offer.
    public static let introductoryOffer = OfferType(rawValue: 1)

    /// A promotional offer.
    public static let promotionalOffer = OfferType(rawValue: 2)

    /// An offer with a subscription or in-app purchase offer code.
    public static let offerCode = OfferType(rawValue: 3)

    /// A win-back offer.
    public static let winBackOffer = OfferType(rawValue: 4)

    /// A retention offer: a promotional offer the customer redeemed on the cancellation sheet,
    /// answered through the Retention Messaging API (see `docs/apple-2026.md` for the source).
    public static let retentionOffer = OfferType(rawValue: 5)

    public static let known: [OfferType] = [
        .introductoryOffer, .promotionalOffer, .offerCode, .winBackOffer, .retentionOffer,
    ]
}
