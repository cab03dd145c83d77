import AppStoreModels
import AppStoreVerification
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    /// `POST /verifyReceipt`: a drop-in for Apple's deprecated endpoint, answered from local
    /// validation plus what the ledger knows.
    ///
    /// As Apple does, it answers HTTP 200 with a `status` for every request it can read: 21000
    /// for an unreadable request, 21002 for data that is not a receipt, 21003 for a receipt
    /// that is not authentic or names no configured app, 21004 for a wrong `password`, 21007 /
    /// 21008 for a receipt of an environment the app does not accept. The path names no app:
    /// the receipt's bundle id does. With the app's shared secret (or when the app has none),
    /// the answer adds `latest_receipt_info` (every ledger transaction of the receipt's
    /// subscription chains, merged with the receipt's own), `pending_renewal_info` and
    /// `latest_receipt` (the receipt sent, echoed); without it, only the receipt.
    package func verifyReceipt(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let buffer = try await body(request)
        let now = clock()
        guard let input = try? JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(buffer: buffer)) else {
            return Self.legacy(VerifyReceiptResponse(status: .unreadableRequest))
        }
        let filter = ReceiptPreFilter(bundleIds: Set(apps.apps.values.map(\.configuration.bundleId)))
        let summary: ReceiptPreFilter.Summary
        switch filter.evaluate(Data(input.receiptData.utf8)) {
        case .success(let value): summary = value
        case .failure(let rejection) where rejection.reason == .wrongBundleId:
            return Self.legacy(VerifyReceiptResponse(status: .notAuthenticated))
        case .failure:
            return Self.legacy(VerifyReceiptResponse(status: .malformedReceipt))
        }
        let candidates = apps.apps.values.filter { $0.configuration.bundleId == summary.bundleId }.sorted { $0.id < $1.id }
        guard let access = Self.receiptAccess(candidates: candidates, password: input.password) else {
            // A genuine receipt of the app with the wrong password: the app is misconfigured.
            if let app = candidates.first, case .valid = app.receiptVerifier.verify(base64Encoded: input.receiptData, now: now) {
                try await noteSharedSecretMismatch(app, now: now)
            }
            return Self.legacy(VerifyReceiptResponse(status: .sharedSecretMismatch))
        }
        if access.includesLedger, access.app.sharedSecretProblem.clear() {
            try await ProblemDesk(store: store).resolve(causeKey: "shared_secret_mismatch", app: access.app, by: "automatic", at: now)
        }
        let receipt: AppReceipt
        switch access.app.receiptVerifier.verify(base64Encoded: input.receiptData, now: now) {
        case .invalid(let status, _): return Self.legacy(VerifyReceiptResponse(status: status))
        case .valid(let value): receipt = value
        }
        if !access.app.configuration.environments.contains(where: { $0.rawValue == receipt.environment.rawValue }) {
            let status: VerifyReceiptStatus =
                receipt.environment == .production
                ? .productionReceiptSentToSandbox : receipt.environment == .sandbox ? .sandboxReceiptSentToProduction : .notAuthenticated
            return Self.legacy(VerifyReceiptResponse(status: status))
        }
        var response = receipt.verifyReceiptResponse(now: now)
        guard access.includesLedger, let legacyReceipt = response.receipt else { return Self.legacy(response) }
        var history = PurchaseHistory()
        history.add(receipt: legacyReceipt)
        var entries: [LedgerEntry] = []
        for chain in Set(history.purchases.values.map(\.originalTransactionId)).sorted() {
            entries += try await store.ledger(appId: access.app.id, originalTransactionId: chain)
        }
        let known = LegacyReceiptInfo(history: PurchaseHistory(ledger: entries).merging(history))
        response.latestReceiptInfo = known.latestReceiptInfo(excludeOldTransactions: input.excludeOldTransactions ?? false)
        let renewals = known.pendingRenewalInfo
        response.pendingRenewalInfo = renewals.isEmpty ? nil : renewals
        response.latestReceipt = input.receiptData
        return Self.legacy(response)
    }

    /// Which app answers and whether the ledger may be shown. The password is compared with
    /// every candidate's secret in constant time (no early exit); a wrong password is `nil`
    /// (21004). Without a password the first app of the bundle answers from the receipt alone,
    /// unless it has no secret to protect its ledger.
    package static func receiptAccess(candidates: [AppRuntime], password: String?) -> (app: AppRuntime, includesLedger: Bool)? {
        guard let first = candidates.first else { return nil }
        guard let password, !password.isEmpty else { return (first, first.configuration.sharedSecret == nil) }
        var matched: AppRuntime?
        for app in candidates {
            if let secret = app.configuration.sharedSecret, ConstantTime.equals(password, secret), matched == nil { matched = app }
        }
        if let matched { return (matched, true) }
        if candidates.allSatisfy({ $0.configuration.sharedSecret == nil }) { return (first, true) }
        return nil
    }

    package static func legacy(_ response: VerifyReceiptResponse) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = (try? encoder.encode(response)) ?? Data("{\"status\":21005}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `verifyReceipt` answered 21004 to a genuine receipt: a problem, opened once by this
    /// process until a call with the right secret resolves it.
    package func noteSharedSecretMismatch(_ app: AppRuntime, now: Date) async throws {
        guard !app.sharedSecretProblem.set() else { return }
        try await ProblemDesk(store: store).open(
            Problem(
                appId: app.id, kind: "shared_secret_mismatch", causeKey: "shared_secret_mismatch",
                summary:
                    "verifyReceipt calls carry a password that is not the app's shared secret (Apple's 21004): update the app or the configuration",
                openedAt: now), app: app)
    }
}
