import AppStoreModels
import Foundation

/// The outcome of verifying a legacy app receipt: the decoded receipt, or Apple's status code
/// for the failure with a human reason.
///
/// Ordinary bad input (garbage, forgeries, other apps' receipts) is an `.invalid` value, never
/// a thrown error.
public enum ReceiptValidationResult: Hashable, Sendable {
    /// The signature and chain are valid; the payload decoded.
    case valid(AppReceipt)
    /// Rejected, with the status `verifyReceipt` would answer (21002 malformed, 21003 not
    /// authenticated, 21007/21008 wrong environment, 21010 expired) and why.
    case invalid(status: VerifyReceiptStatus, reason: String)

    /// 0 when valid, otherwise the failure's status code.
    public var status: VerifyReceiptStatus {
        switch self {
        case .valid: return .valid
        case .invalid(let status, _): return status
        }
    }

    /// The decoded receipt when valid.
    public var receipt: AppReceipt? {
        if case .valid(let receipt) = self { return receipt }
        return nil
    }

    /// Why the receipt was rejected; `nil` when valid.
    public var reason: String? {
        if case .invalid(_, let reason) = self { return reason }
        return nil
    }

    /// The response Apple's `verifyReceipt` gives for this receipt: the decoded receipt with
    /// status 0, or just `{"status": …}` for a failure. `now` becomes `request_date`.
    public func verifyReceiptResponse(now: Date) -> VerifyReceiptResponse {
        switch self {
        case .valid(let receipt): return receipt.verifyReceiptResponse(now: now)
        case .invalid(let status, _): return VerifyReceiptResponse(status: status)
        }
    }
}
