/// A retention message to show.
public struct Message: Codable, Hashable, Sendable {
    /// The identifier of an approved message (a UUID string).
    public var messageIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil) {
        self.messageIdentifier = messageIdentifier
    }
}

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

/// A retention message suggesting another subscription product.
public struct AlternateProduct: Codable, Hashable, Sendable {
    /// The identifier of an approved message (a UUID string).
    public var messageIdentifier: String?

    /// The product to suggest.
    public var productId: String?

    /// The billing plan to suggest.
    public var billingPlanType: BillingPlanType?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        messageIdentifier: String? = nil,
        productId: String? = nil,
        billingPlanType: BillingPlanType? = nil
    ) {
        self.messageIdentifier = messageIdentifier
        self.productId = productId
        self.billingPlanType = billingPlanType
    }
}

/// A bullet point in a retention message.
public struct BulletPoint: Codable, Hashable, Sendable {
    /// The text.
    public var text: String

    /// The identifier of the bullet's icon image (a UUID string).
    public var imageIdentifier: String

    /// Alternative text for the icon.
    public var altText: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(text: String, imageIdentifier: String, altText: String) {
        self.text = text
        self.imageIdentifier = imageIdentifier
        self.altText = altText
    }
}

/// A Retention Messaging answer for an Advanced Commerce subscription.
public struct AdvancedCommerceInfo: Codable, Hashable, Sendable {
    /// The identifier of an approved message (a UUID string).
    public var messageIdentifier: String?

    /// The Advanced Commerce data to present.
    public var advancedCommerceData: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil, advancedCommerceData: String? = nil) {
        self.messageIdentifier = messageIdentifier
        self.advancedCommerceData = advancedCommerceData
    }
}
