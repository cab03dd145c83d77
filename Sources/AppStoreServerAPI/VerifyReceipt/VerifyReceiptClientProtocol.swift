import AppStoreModels

/// Verifies legacy receipts with Apple's `verifyReceipt` endpoint.
///
/// The live value is ``VerifyReceiptClient``; the server depends on this protocol so tests can
/// substitute a fake (or give the live client a scripted transport).
public protocol VerifyReceiptClientProtocol: Sendable {
    /// Sends the receipt to Apple (production first, the sandbox after 21007) and returns the
    /// final answer with its verdict; throws ``AppStoreServerAPIError`` only when no readable
    /// answer was obtained.
    func verify(_ request: VerifyReceiptRequest) async throws -> VerifyReceiptResult
}
