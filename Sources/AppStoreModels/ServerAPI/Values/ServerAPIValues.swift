/// Your preferred outcome for a refund request (Send Consumption Information V2).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct RefundPreference: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Prefer that Apple declines the refund.
    public static let decline = RefundPreference(rawValue: "DECLINE")

    /// Prefer that Apple grants a full refund.
    public static let grantFull = RefundPreference(rawValue: "GRANT_FULL")

    /// Prefer that Apple grants a prorated refund.
    public static let grantProrated = RefundPreference(rawValue: "GRANT_PRORATED")

    public static let known: [RefundPreference] = [
        .decline, .grantFull, .grantProrated,
    ]
}

/// Whether a customer's order ID is valid (Look Up Order ID).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct OrderLookupStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The order ID is valid.
    public static let valid = OrderLookupStatus(rawValue: 0)

    /// The order ID is invalid.
    public static let invalid = OrderLookupStatus(rawValue: 1)

    public static let known: [OrderLookupStatus] = [
        .valid, .invalid,
    ]
}

/// The platform on which the customer consumed the purchase (Send Consumption Information V1).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct Platform: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Not declared.
    public static let undeclared = Platform(rawValue: 0)

    /// An Apple platform.
    public static let apple = Platform(rawValue: 1)

    /// A non-Apple platform.
    public static let nonApple = Platform(rawValue: 2)

    public static let known: [Platform] = [
        .undeclared, .apple, .nonApple,
    ]
}

/// The version of the Get Transaction History endpoint (the path segment).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct GetTransactionHistoryVersion: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Version 1, deprecated by Apple.
    public static let v1 = GetTransactionHistoryVersion(rawValue: "v1")

    /// Version 2.
    public static let v2 = GetTransactionHistoryVersion(rawValue: "v2")

    public static let known: [GetTransactionHistoryVersion] = [
        .v1, .v2,
    ]
}
