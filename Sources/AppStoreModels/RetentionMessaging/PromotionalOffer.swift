/// A retention message with a promotional offer, signed either way Apple accepts.
public struct PromotionalOffer: Codable, Hashable, Sendable {
    /// The identifier of an approved message (a UUID string).
    public var messageIdentifier: String?

    /// A promotional offer JWS (audience `promotional-offer`).
    public var promotionalOfferSignatureV2: String?

    /// A legacy promotional offer signature.
    public var promotionalOfferSignatureV1: PromotionalOfferSignatureV1?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        messageIdentifier: String? = nil,
        promotionalOfferSignatureV2: String? = nil,
        promotionalOfferSignatureV1: PromotionalOfferSignatureV1? = nil
    ) {
        self.messageIdentifier = messageIdentifier
        self.promotionalOfferSignatureV2 = promotionalOfferSignatureV2
        self.promotionalOfferSignatureV1 = promotionalOfferSignatureV1
    }
}
