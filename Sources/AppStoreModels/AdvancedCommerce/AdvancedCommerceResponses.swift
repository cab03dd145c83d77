/// The response of the Advanced Commerce Change Subscription Price request: the updated signed data.
public struct AdvancedCommerceSubscriptionPriceChangeResponse: Codable, Hashable, Sendable {
    /// The updated renewal information, as a JWS.
    public var signedRenewalInfo: String?

    /// The resulting transaction, as a JWS.
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedRenewalInfo: String? = nil, signedTransactionInfo: String? = nil) {
        self.signedRenewalInfo = signedRenewalInfo
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// The response of the Advanced Commerce Request a Refund request: the updated signed data.
public struct AdvancedCommerceRequestRefundResponse: Codable, Hashable, Sendable {
    /// The updated renewal information, as a JWS.
    public var signedRenewalInfo: String?

    /// The resulting transaction, as a JWS.
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedRenewalInfo: String? = nil, signedTransactionInfo: String? = nil) {
        self.signedRenewalInfo = signedRenewalInfo
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// The response of the Advanced Commerce Revoke a Subscription request: the updated signed data.
public struct AdvancedCommerceSubscriptionRevokeResponse: Codable, Hashable, Sendable {
    /// The updated renewal information, as a JWS.
    public var signedRenewalInfo: String?

    /// The resulting transaction, as a JWS.
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedRenewalInfo: String? = nil, signedTransactionInfo: String? = nil) {
        self.signedRenewalInfo = signedRenewalInfo
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// The response of the Advanced Commerce Cancel a Subscription request: the updated signed data.
public struct AdvancedCommerceSubscriptionCancelResponse: Codable, Hashable, Sendable {
    /// The updated renewal information, as a JWS.
    public var signedRenewalInfo: String?

    /// The resulting transaction, as a JWS.
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedRenewalInfo: String? = nil, signedTransactionInfo: String? = nil) {
        self.signedRenewalInfo = signedRenewalInfo
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// The response of the Advanced Commerce Migrate a Subscription request: the updated signed data.
public struct AdvancedCommerceSubscriptionMigrateResponse: Codable, Hashable, Sendable {
    /// The updated renewal information, as a JWS.
    public var signedRenewalInfo: String?

    /// The resulting transaction, as a JWS.
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedRenewalInfo: String? = nil, signedTransactionInfo: String? = nil) {
        self.signedRenewalInfo = signedRenewalInfo
        self.signedTransactionInfo = signedTransactionInfo
    }
}

/// The response of the Advanced Commerce Change Subscription Metadata request: the updated signed data.
public struct AdvancedCommerceSubscriptionChangeMetadataResponse: Codable, Hashable, Sendable {
    /// The updated renewal information, as a JWS.
    public var signedRenewalInfo: String?

    /// The resulting transaction, as a JWS.
    public var signedTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedRenewalInfo: String? = nil, signedTransactionInfo: String? = nil) {
        self.signedRenewalInfo = signedRenewalInfo
        self.signedTransactionInfo = signedTransactionInfo
    }
}
