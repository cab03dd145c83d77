import AppStoreModels
import Foundation
import Hummingbird

extension SimulatorEndpoints {
    /// Transaction info, app transaction info, order lookup, app account tokens and
    /// consumption answers; history and refunds are in `+History`.
    func addTransactionRoutes(to router: Router<BasicRequestContext>) {
        router.get(
            "/inApps/v1/transactions/:transactionId",
            use: api(.getTransactionInfo) { _, context in
                let id = try transactionId(context)
                if store.isAppTransactionId(id) {
                    throw SimulatorAPIError(.appTransactionIdNotSupported, "Invalid request. App transaction ids aren't supported by this endpoint.")
                }
                guard let transaction = store.transaction(id: id) else { throw Self.transactionNotFound }
                return .appleJSON(TransactionInfoResponse(signedTransactionInfo: try sign(transaction)))
            })
        router.get(
            "/inApps/v1/transactions/appTransactions/:transactionId",
            use: api(.getAppTransactionInfo) { _, context in
                let customer = try customer(ofAnyId: try transactionId(context))
                let now = clock.now
                let firstPurchase = store.transactions(ofCustomer: customer).compactMap(\.originalPurchaseDate).min() ?? now
                let signed = try signer.signAppTransaction(customerId: customer, store: store, signedDate: now, originalPurchaseDate: firstPurchase)
                return .appleJSON(AppTransactionInfoResponse(signedAppTransactionInfo: signed))
            })
        router.get(
            "/inApps/v1/lookup/:orderId",
            use: api(.lookUpOrderId) { _, context in
                let orderId = context.parameters.get("orderId") ?? ""
                let transactions = store.transactions(ofOrder: orderId)
                guard !transactions.isEmpty else { return .appleJSON(OrderLookupResponse(status: .invalid, signedTransactions: [])) }
                return .appleJSON(OrderLookupResponse(status: .valid, signedTransactions: try transactions.map(sign)))
            })
        router.put(
            "/inApps/v1/transactions/:transactionId/appAccountToken",
            use: api(.setAppAccountToken) { request, context in
                try await setAppAccountToken(request, context)
            })
        router.put(
            "/inApps/v2/transactions/consumption/:transactionId",
            use: api(.sendConsumptionInformation) { request, context in
                let id = try transactionId(context)
                let answer = try await decodeBody(ConsumptionRequest.self, from: request)
                guard store.transaction(id: id) != nil else { throw Self.transactionNotFound }
                if let refusal = answer.simulatorRefusal { throw refusal }
                store.recordConsumption(answer, transactionId: id)
                return .empty(.accepted)
            })
        router.put(
            "/inApps/v1/transactions/consumption/:transactionId",
            use: api(.sendConsumptionData) { request, context in
                let id = try transactionId(context)
                let answer = try await decodeBody(ConsumptionRequestV1.self, from: request)
                guard store.transaction(id: id) != nil else { throw Self.transactionNotFound }
                if let refusal = answer.simulatorRefusal { throw refusal }
                store.recordConsumption(ConsumptionRequest(answer), transactionId: id)
                return .empty(.accepted)
            })
        addHistoryRoutes(to: router)
    }

    /// Set App Account Token: the token of every transaction of the chain, and of the
    /// subscription's future renewals.
    private func setAppAccountToken(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try transactionId(context, invalid: .invalidOriginalTransactionId)
        let body = try await decodeBody(UpdateAppAccountTokenRequest.self, from: request)
        guard let token = UUID(uuidString: body.appAccountToken) else {
            throw SimulatorAPIError(.invalidAppAccountTokenUUID, "Invalid request. The app account token field must be a valid UUID.")
        }
        guard let original = store.transaction(id: id), let customer = store.customer(ofTransaction: id) else {
            throw SimulatorAPIError(.originalTransactionIdNotFound, "Original transaction id not found.")
        }
        guard original.originalTransactionId == nil || original.originalTransactionId == id else {
            throw SimulatorAPIError(.transactionIdNotOriginalTransactionId, "Invalid request. The transaction id is not an original transaction id.")
        }
        guard original.inAppOwnershipType != .familyShared else {
            throw SimulatorAPIError(.familyTransactionNotSupported, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
        }
        let text = token.uuidString.lowercased()
        for var transaction in store.transactions(ofOriginalTransactionId: id) {
            transaction.appAccountToken = text
            store.record(transaction, customerId: customer)
        }
        store.modify(id) { $0.appAccountToken = text }
        return .empty(.ok)
    }

    // MARK: Identifiers

    static let transactionNotFound = SimulatorAPIError(.transactionIdNotFound, "Transaction id not found.")

    /// The `transactionId` path parameter, which must look like Apple's (decimal digits).
    func transactionId(
        _ context: BasicRequestContext, _ name: String = "transactionId", invalid: APIErrorCode = .invalidTransactionId
    ) throws -> String {
        guard let id = context.parameters.get(name), !id.isEmpty, id.utf8.count <= 32,
            id.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw SimulatorAPIError(
                invalid, invalid == .invalidOriginalTransactionId ? "Invalid original transaction id." : "Invalid transaction id.")
        }
        return id
    }

    /// The account of a transaction, original transaction or app transaction id.
    func customer(ofAnyId id: String) throws -> String {
        guard let customer = store.customer(ofAnyTransactionId: id) else { throw Self.transactionNotFound }
        return customer
    }
}
