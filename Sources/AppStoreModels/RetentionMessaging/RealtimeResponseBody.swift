/// Your answer to a Retention Messaging real-time request: the one message to show.
///
/// Set exactly one of the fields.
public struct RealtimeResponseBody: Codable, Hashable, Sendable {
    /// Show a text (or text and image) message.
    public var message: Message?

    /// Suggest switching to another product.
    public var alternateProduct: AlternateProduct?

    /// Offer a promotional offer.
    public var promotionalOffer: PromotionalOffer?

    /// Show an Advanced Commerce message.
    public var advancedCommerceInfo: AdvancedCommerceInfo?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        message: Message? = nil,
        alternateProduct: AlternateProduct? = nil,
        promotionalOffer: PromotionalOffer? = nil,
        advancedCommerceInfo: AdvancedCommerceInfo? = nil
    ) {
        self.message = message
        self.alternateProduct = alternateProduct
        self.promotionalOffer = promotionalOffer
        self.advancedCommerceInfo = advancedCommerceInfo
    }
}
