/// The `status` of a `verifyReceipt` response: 0 when the receipt is valid, an error code otherwise.
///
/// An open set: any integer decodes (Apple documents the range 21100–21199 only as a whole), keeps
/// its value and encodes back unchanged.
public struct VerifyReceiptStatus: AppStoreOpenValue, Comparable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The receipt is valid.
    public static let valid = VerifyReceiptStatus(rawValue: 0)
    /// The request was not an HTTP POST, or the App Store could not read its JSON.
    public static let unreadableRequest = VerifyReceiptStatus(rawValue: 21000)
    /// No longer sent by the App Store (formerly: `receipt-data` missing).
    public static let receiptDataMissing = VerifyReceiptStatus(rawValue: 21001)
    /// The `receipt-data` is malformed (not a receipt), or a temporary issue occurred.
    public static let malformedReceipt = VerifyReceiptStatus(rawValue: 21002)
    /// The receipt could not be authenticated (signature or certificate chain invalid).
    public static let notAuthenticated = VerifyReceiptStatus(rawValue: 21003)
    /// The shared secret (`password`) does not match the one on file for the account.
    public static let sharedSecretMismatch = VerifyReceiptStatus(rawValue: 21004)
    /// The receipt server was temporarily unavailable; try again.
    public static let serverUnavailable = VerifyReceiptStatus(rawValue: 21005)
    /// iOS 6 transaction receipts only: valid, but the subscription has expired.
    public static let subscriptionExpired = VerifyReceiptStatus(rawValue: 21006)
    /// A sandbox receipt was sent to the production endpoint; retry against sandbox.
    public static let sandboxReceiptSentToProduction = VerifyReceiptStatus(rawValue: 21007)
    /// A production receipt was sent to the sandbox endpoint; retry against production.
    public static let productionReceiptSentToSandbox = VerifyReceiptStatus(rawValue: 21008)
    /// Internal data access error; try again later.
    public static let internalDataAccessError = VerifyReceiptStatus(rawValue: 21009)
    /// The user account cannot be found or was deleted; the receipt could not be authorized.
    public static let accountNotFound = VerifyReceiptStatus(rawValue: 21010)

    /// The documented single codes, in Apple's order. 21100–21199 are ``isInternalDataAccessError``.
    public static let known: [VerifyReceiptStatus] = [
        .valid, .unreadableRequest, .receiptDataMissing, .malformedReceipt, .notAuthenticated,
        .sharedSecretMismatch, .serverUnavailable, .subscriptionExpired, .sandboxReceiptSentToProduction,
        .productionReceiptSentToSandbox, .internalDataAccessError, .accountNotFound,
    ]

    /// Whether the code is one of the internal data access errors 21100–21199.
    public var isInternalDataAccessError: Bool { (21100...21199).contains(rawValue) }

    /// Whether Apple documents this code (a known single code or the 21100–21199 range).
    public var isDocumented: Bool { isKnown || isInternalDataAccessError }

    /// Whether the same request may succeed when sent again later (Apple's transient errors).
    public var isRetryable: Bool {
        self == .malformedReceipt || self == .serverUnavailable || self == .internalDataAccessError
            || isInternalDataAccessError
    }

    /// Apple's meaning of the code, for logs and error messages.
    public var meaning: String {
        switch self {
        case .valid: return "The receipt is valid."
        case .unreadableRequest: return "The request was not an HTTP POST, or its JSON could not be read."
        case .receiptDataMissing: return "The receipt-data property was missing (no longer sent)."
        case .malformedReceipt: return "The receipt data is malformed, or the service had a temporary issue."
        case .notAuthenticated: return "The receipt could not be authenticated."
        case .sharedSecretMismatch: return "The shared secret does not match the one on file for the account."
        case .serverUnavailable: return "The receipt server was temporarily unable to provide the receipt."
        case .subscriptionExpired: return "The receipt is valid but the subscription has expired."
        case .sandboxReceiptSentToProduction: return "A sandbox receipt was sent to the production environment."
        case .productionReceiptSentToSandbox: return "A production receipt was sent to the sandbox environment."
        case .internalDataAccessError: return "Internal data access error; try again later."
        case .accountNotFound: return "The user account cannot be found or has been deleted."
        default:
            return isInternalDataAccessError ? "Internal data access error; try again later." : "Undocumented status code."
        }
    }

    public static func < (lhs: VerifyReceiptStatus, rhs: VerifyReceiptStatus) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
