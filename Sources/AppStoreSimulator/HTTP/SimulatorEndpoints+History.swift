import AppStoreModels
import Foundation
import Hummingbird

extension SimulatorEndpoints {
    /// Get Transaction History (v1 and v2) and Get Refund History (v2).
    func addHistoryRoutes(to router: Router<BasicRequestContext>) {
        for version in ["v1", "v2"] {
            router.get(
                "/inApps/\(version)/history/:transactionId",
                use: api(.getTransactionHistory) { request, context in
                    try transactionHistory(request, context)
                })
        }
        router.get(
            "/inApps/v2/refund/lookup/:transactionId",
            use: api(.getRefundHistory) { request, context in
                try refundHistory(request, context)
            })
    }

    /// One page of the account's transactions passing the filters, in modification order.
    private func transactionHistory(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let customer = try customer(ofAnyId: try transactionId(context))
        let query = request.uri.queryParameters
        let filter = try TransactionHistoryRequest(simulatorQuery: query)
        let descending = filter.sort == .descending
        let position = try revision(query, descending: descending)
        let all = store.modifiedTransactions(ofCustomer: customer)
        let matching = all.filter { filter.admits($0.transaction) }.map { (sequence: $0.sequence, item: $0.transaction) }
        let page = position.page(matching, size: configuration.pageSize, allSequences: all.map(\.sequence))
        return .appleJSON(
            HistoryResponse(
                revision: page.revision.token, hasMore: page.hasMore, bundleId: store.bundleId, appAppleId: store.appAppleId,
                environment: store.environment, signedTransactions: try page.items.map(sign)))
    }

    /// One page of the account's revoked (refunded) transactions.
    private func refundHistory(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let customer = try customer(ofAnyId: try transactionId(context))
        let position = try revision(request.uri.queryParameters, descending: false)
        let all = store.modifiedTransactions(ofCustomer: customer)
        let refunded = all.filter { $0.transaction.revocationDate != nil }.map { (sequence: $0.sequence, item: $0.transaction) }
        let page = position.page(refunded, size: configuration.pageSize, allSequences: all.map(\.sequence))
        return .appleJSON(
            RefundHistoryResponse(
                signedTransactions: try page.items.map(sign), revision: page.revision.token, hasMore: page.hasMore))
    }

    /// The request's `revision`, or the start of a walk; a token of the other direction or not
    /// issued here is Apple's 4000005.
    private func revision(_ query: Parameters, descending: Bool) throws -> HistoryRevision {
        guard let token = query.get("revision"), !token.isEmpty else { return .start(descending: descending) }
        guard let revision = HistoryRevision(token: token), revision.descending == descending else {
            throw SimulatorAPIError(.invalidRequestRevision, "Invalid request revision.")
        }
        return revision
    }
}
