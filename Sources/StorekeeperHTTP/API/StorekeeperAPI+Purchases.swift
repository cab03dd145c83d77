import AppStoreModels
import AppStoreVerification
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    package struct PurchaseRequest: Decodable {
        package var signedTransaction: String?
        package var receipt: String?
    }

    /// `POST /v1/apps/{appId}/customers/{customerId}/purchases`: verifies a StoreKit 2 signed
    /// transaction or a legacy receipt, hands its facts to the intake as the customer's (its
    /// chains are linked to it; 409 when a chain is another customer's, or the transaction's app
    /// account token was issued to another customer), and answers the customer's state.
    package func postPurchase(_ request: Request, _ context: APIRequestContext) async throws -> CustomerStateResponse {
        let (app, customer) = (try context.caller().app, try context.customerId())
        let input = try JSONBody.decode(PurchaseRequest.self, from: try await body(request))
        let now = clock()
        let submission: FactSubmission
        switch (input.signedTransaction, input.receipt) {
        case (let signed?, nil):
            let (fact, token) = try await verifiedTransaction(signed, app: app, now: now)
            submission = FactSubmission(
                facts: [.purchase(fact)], source: .storeKit2, raw: signed, binding: .claimedBy(customerId: customer, appAccountToken: token))
        case (nil, let receipt?):
            submission = FactSubmission(
                facts: try verifiedReceipt(receipt, app: app, now: now), source: .receipt, raw: receipt,
                binding: .claimedBy(customerId: customer, appAccountToken: nil))
        default:
            throw APIError.badRequest("send exactly one of signedTransaction or receipt")
        }
        do {
            try await intake.record(submission, app: app, now: now)
        } catch let taken as FactIntake.AliasTaken {
            throw Self.replayed(taken.alias)
        } catch let error as StoreError where error.code == .aliasConflict {
            throw APIError(.conflict, code: .transactionBelongsToAnotherCustomer, message: "this purchase is linked to another customer of the app")
        }
        return try await customerState(app: app, customerId: customer)
    }

    /// A signed transaction the app posted, verified for the app (signature, bundle,
    /// environment, catalog): its fact and its app account token. 422 otherwise.
    package func verifiedTransaction(_ signed: String, app: AppRuntime, now: Date) async throws -> (PurchaseFact, String?) {
        guard signed.utf8.count < 64 * 1024 else { throw APIError.badRequest("signedTransaction is too long") }
        switch await app.verify({ await $0.verifyAndDecodeTransaction(signed, now: now) }) {
        case .invalid(let failure):
            throw APIError(.unprocessableContent, code: .invalidTransaction, message: "\(failure.reason.rawValue): \(failure.message)")
        case .valid(let transaction):
            let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
            if let refusal = filter.check(
                bundleId: transaction.bundleId, environment: transaction.environment, productIds: [transaction.productId].compactMap { $0 })
            {
                throw APIError(.unprocessableContent, code: .refusedTransaction, message: refusal.description)
            }
            guard let fact = PurchaseFact(transaction: transaction) else {
                throw APIError(.unprocessableContent, code: .invalidTransaction, message: "the transaction lacks its ids or dates")
            }
            return (fact, transaction.appAccountToken)
        }
    }

    /// A legacy receipt the app posted, verified for the app (Apple's chain, bundle,
    /// environment, products): its facts, stamped with the receipt's environment. 422 otherwise.
    package func verifiedReceipt(_ receipt: String, app: AppRuntime, now: Date) throws -> [LedgerFact] {
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        if let refusal = filter.checkReceipt(receipt) {
            throw APIError(.unprocessableContent, code: refusal.isFraud ? .refusedReceipt : .invalidReceipt, message: refusal.reason)
        }
        switch app.receiptVerifier.verify(base64Encoded: receipt, now: now) {
        case .invalid(let status, let reason):
            throw APIError(.unprocessableContent, code: .invalidReceipt, message: "status \(status.rawValue): \(reason)")
        case .valid(let appReceipt):
            if let refusal = filter.check(bundleId: nil, environment: appReceipt.environment, productIds: []) {
                throw APIError(.unprocessableContent, code: .refusedReceipt, message: refusal.description)
            }
            var history = PurchaseHistory()
            history.add(receipt: appReceipt.legacyReceipt(requestDate: now))
            return FactSubmission.facts(of: history, environment: appReceipt.environment.rawValue)
        }
    }

    package static func replayed(_ alias: CustomerAlias) -> APIError {
        APIError(
            .conflict, code: .transactionBelongsToAnotherCustomer,
            message: "this purchase (\(alias.kind.rawValue)) is linked to another customer of the app")
    }
}
