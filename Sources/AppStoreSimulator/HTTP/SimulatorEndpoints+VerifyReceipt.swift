import AppStoreModels
import AppStoreVerification
import Foundation
import Hummingbird

extension SimulatorEndpoints {
    /// Which of Apple's two `verifyReceipt` hosts a request reached.
    enum ReceiptEndpoint: Sendable {
        case production
        case sandbox

        var environment: AppStoreEnvironment { self == .production ? .production : .sandbox }
    }

    /// Apple's legacy `verifyReceipt`, answered HTTP 200 with a `status` like Apple's: 21000 for
    /// an unreadable request, 21002 for data that is no receipt, 21003 for a receipt that is not
    /// authentic or not this app's, 21004 for a wrong shared secret, 21007 for a sandbox receipt
    /// sent to production and 21008 for the reverse.
    ///
    /// A valid receipt is answered with its decoded contents; with the right shared secret (or
    /// none configured) also with the account's transactions as the simulated App Store knows
    /// them now (`latest_receipt_info`, newest first, only each subscription's latest with
    /// `exclude-old-transactions`), its subscriptions' `pending_renewal_info`, and a fresh
    /// `latest_receipt`.
    func verifyReceipt(_ request: Request, endpoint: ReceiptEndpoint) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: 8 << 20)
        let now = clock.now
        guard let input = try? JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(buffer.readableBytesView)) else {
            return .appleJSON(VerifyReceiptResponse(status: .unreadableRequest))
        }
        let receipt: AppReceipt
        switch receiptVerifier.verify(base64Encoded: input.receiptData, now: now) {
        case .invalid(let status, _): return .appleJSON(VerifyReceiptResponse(status: status))
        case .valid(let value): receipt = value
        }
        switch (receipt.environment, endpoint) {
        case (.sandbox, .production): return .appleJSON(VerifyReceiptResponse(status: .sandboxReceiptSentToProduction))
        case (.production, .sandbox): return .appleJSON(VerifyReceiptResponse(status: .productionReceiptSentToSandbox))
        default: break
        }
        guard receipt.bundleId == store.bundleId, receipt.environment == store.environment else {
            return .appleJSON(VerifyReceiptResponse(status: .notAuthenticated))
        }
        var includesAccount = true
        if let secret = configuration.sharedSecret {
            if let password = input.password, !password.isEmpty {
                guard password == secret else { return .appleJSON(VerifyReceiptResponse(status: .sharedSecretMismatch)) }
            } else {
                includesAccount = false
            }
        }
        var response = receipt.verifyReceiptResponse(now: now)
        guard includesAccount, let customer = customer(ofReceipt: receipt) else { return .appleJSON(response) }

        var transactions = store.transactions(ofCustomer: customer)
            .filter { ($0.purchaseDate ?? .distantFuture) <= now }
            .sorted { ($0.purchaseDate ?? .distantPast, $0.transactionId ?? "") > ($1.purchaseDate ?? .distantPast, $1.transactionId ?? "") }
        if input.excludeOldTransactions == true {
            var seen = Set<String>()
            transactions = transactions.filter {
                $0.type != .autoRenewableSubscription || seen.insert($0.originalTransactionId ?? $0.transactionId ?? "").inserted
            }
        }
        response.latestReceiptInfo = transactions.map(\.legacyInAppPurchase)
        let renewals = store.subscriptions(ofCustomer: customer).map { $0.legacyPendingRenewalInfo(at: now) }
        response.pendingRenewalInfo = renewals.isEmpty ? nil : renewals
        response.latestReceipt = try signer.signReceipt(customerId: customer, store: store, at: now).base64EncodedString()
        return .appleJSON(response)
    }

    /// The account a receipt belongs to: by its download id (the account's app transaction id)
    /// or by any of its purchases.
    private func customer(ofReceipt receipt: AppReceipt) -> String? {
        if let downloadId = receipt.downloadId, downloadId > 0,
            let customer = store.customer(ofAnyTransactionId: String(downloadId))
        {
            return customer
        }
        return receipt.inAppPurchases.lazy.compactMap { $0.transactionId.flatMap(store.customer(ofTransaction:)) }.first
    }
}
