import AppStoreModels
import AppStoreVerification
import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    struct PurchaseRequest: Decodable {
        var signedTransaction: String?
        var receipt: String?
    }

    /// `POST /v1/apps/{appId}/customers/{customerId}/purchases`: verifies a StoreKit 2 signed
    /// transaction or a legacy receipt, links its chains to the customer and records its facts.
    func postPurchase(_ request: Request, _ context: APIRequestContext) async throws -> CustomerStateResponse {
        let (app, customer) = (try context.caller().app, try context.customerId())
        let input = try JSONBody.decode(PurchaseRequest.self, from: try await body(request))
        let now = clock()
        var history = PurchaseHistory()
        var token: String?
        let raw: String
        let source: FactSource
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let signed = input.signedTransaction, input.receipt == nil {
            guard signed.utf8.count < 64 * 1024 else { throw APIError.badRequest("signedTransaction is too long") }
            switch await app.verify({ await $0.verifyAndDecodeTransaction(signed, now: now) }) {
            case .invalid(let failure):
                throw APIError(.unprocessableContent, code: .invalidTransaction, message: "\(failure.reason.rawValue): \(failure.message)")
            case .valid(let transaction):
                if let reason = filter.check(
                    bundleId: transaction.bundleId, environment: transaction.environment, productIds: [transaction.productId].compactMap { $0 })
                {
                    throw APIError(.unprocessableContent, code: .refusedTransaction, message: reason)
                }
                guard let fact = PurchaseFact(transaction: transaction) else {
                    throw APIError(.unprocessableContent, code: .invalidTransaction, message: "the transaction lacks its ids or dates")
                }
                history.add(fact)
                token = transaction.appAccountToken
            }
            raw = signed
            source = .storeKit2
        } else if let receipt = input.receipt, input.signedTransaction == nil {
            if let refusal = filter.checkReceipt(receipt) {
                throw APIError(.unprocessableContent, code: refusal.isFraud ? .refusedReceipt : .invalidReceipt, message: refusal.reason)
            }
            switch app.receiptVerifier.verify(base64Encoded: receipt, now: now) {
            case .invalid(let status, let reason):
                throw APIError(.unprocessableContent, code: .invalidReceipt, message: "status \(status.rawValue): \(reason)")
            case .valid(let appReceipt):
                if let reason = filter.check(bundleId: nil, environment: appReceipt.environment, productIds: []) {
                    throw APIError(.unprocessableContent, code: .refusedReceipt, message: reason)
                }
                history.add(receipt: appReceipt.legacyReceipt(requestDate: now))
            }
            raw = receipt
            source = .receipt
        } else {
            throw APIError.badRequest("send exactly one of signedTransaction or receipt")
        }
        let facts = FactSubmission.facts(of: history)
        do {
            try await intake.record(
                FactSubmission(
                    facts: facts, source: source, raw: raw, binding: .claimedBy(customerId: customer, appAccountToken: token)),
                app: app, now: now)
        } catch let taken as FactIntake.AliasTaken {
            throw Self.replayed(taken.alias)
        } catch let error as StoreError where error.code == .aliasConflict {
            throw APIError(.conflict, code: .transactionBelongsToAnotherCustomer, message: "this purchase is linked to another customer of the app")
        }
        return try await customerState(app: app, customerId: customer)
    }

    static func replayed(_ alias: CustomerAlias) -> APIError {
        APIError(
            .conflict, code: .transactionBelongsToAnotherCustomer,
            message: "this purchase (\(alias.kind.rawValue)) is linked to another customer of the app")
    }
}
