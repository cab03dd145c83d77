import AppStoreModels

/// The pages of a paginated App Store Server API listing, fetched one at a time as iterated.
///
/// Iteration ends after the page that says there is no more (or gives no next token). A page
/// that hands back the token it was fetched with would loop forever; it ends iteration with a
/// ``AppStoreServerAPIError/Code/malformedResponse`` error instead.
public struct APIPages<Page: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Page

    /// Fetches the page for a token (`nil` for the first) and returns it with the next token,
    /// `nil` when it is the last page.
    public typealias Fetch = @Sendable (_ token: String?) async throws -> (page: Page, next: String?)

    private let fetch: Fetch
    private let startToken: String?

    /// Pages starting at `startToken` (`nil`: the first page), e.g. to resume a saved sweep.
    public init(startingAt startToken: String? = nil, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.startToken = startToken
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(fetch: fetch, token: startToken)
    }

    /// Fetches pages on demand.
    public struct Iterator: AsyncIteratorProtocol {
        let fetch: Fetch
        var token: String?
        var finished = false

        public mutating func next() async throws -> Page? {
            guard !finished else { return nil }
            let sent = token
            let (page, next) = try await fetch(sent)
            if let next, next == sent {
                finished = true
                throw AppStoreServerAPIError(.malformedResponse, "a page returned the token it was requested with; pagination stopped")
            }
            token = next
            finished = next == nil
            return page
        }
    }
}

extension AppStoreServerAPIClientProtocol {
    /// Every page of a customer's transaction history (v2), continuing with each page's
    /// `revision` under the same filter. Pass a saved `revision` to resume.
    public func transactionHistoryPages(
        transactionId: String, filter: TransactionHistoryRequest = TransactionHistoryRequest(), startingAt revision: String? = nil
    ) -> APIPages<HistoryResponse> {
        APIPages(startingAt: revision) { token in
            let page = try await getTransactionHistory(transactionId: transactionId, revision: token, filter: filter, version: .v2)
            return (page, page.hasMore == true ? page.revision : nil)
        }
    }

    /// Every page of a customer's refund history (v2).
    public func refundHistoryPages(transactionId: String, startingAt revision: String? = nil) -> APIPages<RefundHistoryResponse> {
        APIPages(startingAt: revision) { token in
            let page = try await getRefundHistory(transactionId: transactionId, revision: token)
            return (page, page.hasMore == true ? page.revision : nil)
        }
    }

    /// Every page of notification history matching `request`.
    public func notificationHistoryPages(
        request: NotificationHistoryRequest, startingAt paginationToken: String? = nil
    ) -> APIPages<NotificationHistoryResponse> {
        APIPages(startingAt: paginationToken) { token in
            let page = try await getNotificationHistory(paginationToken: token, request: request)
            return (page, page.hasMore == true ? page.paginationToken : nil)
        }
    }
}
