import AppStoreModels

/// What a `verifyReceipt` answer means for the caller, status code by status code.
public enum VerifyReceiptVerdict: Hashable, Sendable {
    /// 0: the receipt is valid.
    case valid
    /// 21006: an iOS 6 transaction receipt that is valid but whose subscription has expired.
    case subscriptionExpired
    /// 21004: the app's shared secret is wrong. A configuration problem, not the customer's:
    /// raise an alert.
    case wrongSharedSecret
    /// The receipt itself is bad: 21000 (unreadable request), 21001, 21002 (malformed),
    /// 21003 (not authenticated), 21010 (account not found).
    case invalidReceipt(VerifyReceiptStatus)
    /// Apple stayed unavailable through every retry: 21005, 21009 or 21100–21199.
    case temporarilyUnavailable(VerifyReceiptStatus)
    /// 21007 or 21008 even after switching environment once.
    case wrongEnvironment(VerifyReceiptStatus)
    /// A status Apple does not document.
    case undocumented(VerifyReceiptStatus)

    /// The verdict for a final status.
    public init(status: VerifyReceiptStatus) {
        switch status {
        case .valid: self = .valid
        case .subscriptionExpired: self = .subscriptionExpired
        case .sharedSecretMismatch: self = .wrongSharedSecret
        case .unreadableRequest, .receiptDataMissing, .malformedReceipt, .notAuthenticated, .accountNotFound:
            self = .invalidReceipt(status)
        case .serverUnavailable, .internalDataAccessError: self = .temporarilyUnavailable(status)
        case .sandboxReceiptSentToProduction, .productionReceiptSentToSandbox: self = .wrongEnvironment(status)
        default:
            self = status.isInternalDataAccessError ? .temporarilyUnavailable(status) : .undocumented(status)
        }
    }

    /// Whether the verdict should raise an operator alert (the shared secret is wrong).
    public var needsAlert: Bool { self == .wrongSharedSecret }

    /// Whether the receipt's content can be trusted and used.
    public var isValid: Bool { self == .valid || self == .subscriptionExpired }
}
