import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    package struct GrantRequest: Decodable {
        /// `grant` (default) or `revoke`.
        package var action: String?
        package var productId: String?
        package var startDate: Date?
        package var endDate: Date?
        /// For `revoke`: the grant or Apple transaction to take back.
        package var transactionId: String?
        /// For `grant`: an id making the request idempotent.
        package var grantId: String?
        package var reason: String

        package init(
            action: String? = nil, productId: String? = nil, startDate: Date? = nil, endDate: Date? = nil, transactionId: String? = nil,
            grantId: String? = nil, reason: String
        ) {
            self.action = action
            self.productId = productId
            self.startDate = startDate
            self.endDate = endDate
            self.transactionId = transactionId
            self.grantId = grantId
            self.reason = reason
        }
    }

    /// `POST /v1/apps/{appId}/customers/{customerId}/grants` (admin key): a manual grant or
    /// revocation, recorded as a ledger fact and in the audit log.
    package func postGrant(_ request: Request, _ context: APIRequestContext) async throws -> EditedResponse<CustomerStateResponse> {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let customer = try context.customerId()
        let input = try JSONBody.decode(GrantRequest.self, from: try await body(request))
        try await recordGrant(input, customer: customer, app: app, actor: principal.actor)
        return EditedResponse(status: .created, response: try await customerState(app: app, customerId: customer))
    }

    /// Records a manual grant or revocation for `customer` (checked as the API checks it), with
    /// its audit entry under `actor`.
    package func recordGrant(_ input: GrantRequest, customer: String, app: AppRuntime, actor: String) async throws {
        let reason = input.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...1000).contains(reason.count) else { throw APIError.badRequest("reason must be 1 to 1000 characters") }
        let now = clock()
        let fact: LedgerFact
        let action: AuditAction
        switch input.action ?? "grant" {
        case "grant":
            guard let productId = input.productId, (1...256).contains(productId.utf8.count) else {
                throw APIError.badRequest("a grant needs a productId")
            }
            if !app.catalog.products.isEmpty, app.catalog.product(productId) == nil {
                throw APIError(.unprocessableContent, code: .unknownProduct, message: "\(productId) is not in the app's catalog")
            }
            let start = input.startDate ?? now
            if let end = input.endDate, end <= start { throw APIError.badRequest("endDate must be after startDate") }
            let id = "grant:" + (input.grantId ?? UUID().uuidString.lowercased())
            guard id.utf8.count <= 128 else { throw APIError.badRequest("grantId is too long") }
            fact = .purchase(.manualGrant(id: id, productId: productId, startDate: start, endDate: input.endDate))
            action = .grant
        case "revoke":
            guard let transactionId = input.transactionId, (1...128).contains(transactionId.utf8.count) else {
                throw APIError.badRequest("a revocation needs a transactionId")
            }
            let chain = try await revocableChain(transactionId: transactionId, customer: customer, app: app)
            fact = .revocation(.init(transactionId: transactionId, date: input.startDate ?? now, reason: reason, originalTransactionId: chain))
            action = .revoke
        default:
            throw APIError.badRequest("action must be grant or revoke")
        }
        let details = ["transactionId": fact.transactionId, "productId": input.productId].compactMapValues { $0 }
        try await intake.record(
            FactSubmission(
                facts: [fact], source: .manual, binding: .operatorFor(customerId: customer),
                audit: [
                    AuditEntry(
                        appId: app.id, actor: actor, action: action, customerId: customer, reason: reason,
                        details: details, at: now)
                ]), app: app, now: now)
    }

    /// The chain of the transaction a revocation names, after checking that it is this
    /// customer's: 422 when the ledger does not know it, 409 when it is another customer's.
    private func revocableChain(transactionId: String, customer: String, app: AppRuntime) async throws -> String? {
        guard let (purchase, owner) = try await recordedPurchase(transactionId: transactionId, app: app) else {
            throw APIError(
                .unprocessableContent, code: .unknownTransaction, message: "no transaction or grant \(transactionId) is recorded for this app")
        }
        if let owner, !CustomerId.same(owner, customer) { throw Self.anotherCustomersTransaction }
        return purchase.originalTransactionId
    }

    /// The purchase the ledger records as `transactionId` and the customer its chain is linked
    /// to (none when only Apple's notifications brought it); `nil` when the ledger does not know it.
    package func recordedPurchase(transactionId: String, app: AppRuntime) async throws -> (PurchaseFact, owner: String?)? {
        let entries = try await store.ledger(appId: app.id, transactionId: transactionId)
        guard
            let (entry, purchase) = entries.lazy.compactMap({ entry -> (LedgerEntry, PurchaseFact)? in
                if case .purchase(let fact) = entry.fact { return (entry, fact) }
                return nil
            }).first
        else { return nil }
        let owner = try await store.customer(appId: app.id, alias: .originalTransactionId(purchase.originalTransactionId)) ?? entry.customerId
        return (purchase, owner)
    }

    package static let anotherCustomersTransaction = APIError(
        .conflict, code: .transactionBelongsToAnotherCustomer, message: "this transaction belongs to another customer of the app")
}
