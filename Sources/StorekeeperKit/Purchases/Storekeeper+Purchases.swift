import Foundation

extension Storekeeper {
    struct PurchaseBody: Encodable {
        var signedTransaction: String
    }

    struct OfferSignBody: Encodable {
        var customerId: String
        var productId: String
        var offerId: String
        var appAccountToken: String
    }

    /// The server's code for a token it did not issue to the customer (rotated since it was kept).
    static let tokenNotIssued = "app_account_token_not_issued"

    struct OfferSignAnswer: Decodable {
        var keyId: String
        var nonce: String
        var timestamp: Int64
        var signature: String?
    }

    struct ProblemBody: Encodable {
        var kind: String
        var productId: String?
        var transactionId: String?
        /// What proves the purchase is this customer's while the server has not recorded it.
        var signedTransaction: String?
        var reason: String
        var evidence: [String: String]
    }

    /// Buys `productId` for the customer with its app account token (``appAccountToken()``; with
    /// the server's signature when `promotionalOfferId` is given), then delivers it through the
    /// server.
    public func purchase(productId: String, promotionalOfferId: String? = nil) async -> PurchaseOutcome {
        await purchase(productId: productId, promotionalOfferId: promotionalOfferId, keptTokenRefused: false)
    }

    private func purchase(productId: String, promotionalOfferId: String?, keptTokenRefused: Bool) async -> PurchaseOutcome {
        var options: StorePurchaseOptions
        do {
            options = StorePurchaseOptions(appAccountToken: try await appAccountToken())
        } catch let error as StorekeeperError {
            return .notCharged(error.isTransient ? .networkBeforePayment : .failed("no app account token: \(error)"))
        } catch {
            return .notCharged(.failed("no app account token: \(error)"))
        }
        if let offerId = promotionalOfferId {
            do {
                options.promotionalOffer = try await signOffer(productId: productId, offerId: offerId, token: options.appAccountToken)
            } catch let error as StorekeeperError where error.serverCode == Self.tokenNotIssued && !keptTokenRefused {
                // The kept token was rotated away: the purchase needs the customer's new one.
                forgetAppAccountToken()
                return await purchase(productId: productId, promotionalOfferId: promotionalOfferId, keptTokenRefused: true)
            } catch let error as StorekeeperError {
                return .notCharged(error.isTransient ? .networkBeforePayment : .failed("the offer was not signed: \(error)"))
            } catch {
                return .notCharged(.failed("the offer was not signed: \(error)"))
            }
        }
        switch await store.purchase(productId: productId, options: options) {
        case .userCancelled: return .notCharged(.cancelled)
        case .pending: return .notCharged(.pending)
        case .failed(.notAllowed): return .notCharged(.notAllowed)
        case .failed(.productUnavailable): return .notCharged(.productUnavailable)
        case .failed(.network): return .notCharged(.networkBeforePayment)
        case .failed(.unverified(let reason)): return .notCharged(.failed("StoreKit could not verify the transaction: \(reason)"))
        case .failed(.other(let reason)): return .notCharged(.failed(reason))
        case .purchased(let transaction): return await deliver(transaction, force: false)
        }
    }

    func signOffer(productId: String, offerId: String, token: UUID) async throws -> SignedPromotionalOffer {
        let body = OfferSignBody(customerId: customerId, productId: productId, offerId: offerId, appAccountToken: token.uuidString.lowercased())
        let answer = try server.decode(OfferSignAnswer.self, try await server.call("POST", ["offers", "sign"], body: body))
        guard let signature = answer.signature, let nonce = UUID(uuidString: answer.nonce) else {
            throw StorekeeperError(.invalidAnswer, "the offer signature lacks its signature or nonce")
        }
        return SignedPromotionalOffer(offerId: offerId, keyId: answer.keyId, nonce: nonce, timestamp: answer.timestamp, signature: signature)
    }

    /// Posts a charged transaction to the server and finishes it once recorded. What the server
    /// has not recorded stays on disk (attempts counted before each post, so a crash still
    /// counts) until the bound, then it is reported as a problem. A given-up purchase is posted
    /// again only with `force` (a restore).
    func deliver(_ transaction: StoreTransaction, force: Bool) async -> PurchaseOutcome {
        var pending = pendingFile.load()
        var entry =
            pending.first { $0.transaction.id == transaction.id }
            ?? PendingPurchase(
                transaction: transaction, customerId: customerId, attempts: 0, lastError: nil, state: .retrying, problemReported: false,
                firstAttempt: Date())
        if entry.state == .givenUp, !force {
            if !entry.problemReported {
                entry.problemReported = await report(entry)
                store(entry, in: &pending)
            }
            return .chargedGivenUp(transactionId: transaction.id, reason: entry.lastError ?? "given up", problemReported: entry.problemReported)
        }
        entry.attempts += 1
        store(entry, in: &pending)
        do {
            try await post(transaction)
        } catch {
            let failure = error as? StorekeeperError ?? StorekeeperError(.network, "\(error)")
            entry.lastError = failure.description
            if !failure.isTransient || entry.attempts >= configuration.deliveryAttempts {
                entry.state = .givenUp
                entry.problemReported = await report(entry)
                store(entry, in: &pending)
                return .chargedGivenUp(transactionId: transaction.id, reason: failure.description, problemReported: entry.problemReported)
            }
            store(entry, in: &pending)
            return .chargedNotDelivered(transactionId: transaction.id, attempts: entry.attempts, reason: failure.description)
        }
        await store.finish(transaction)
        pending.removeAll { $0.transaction.id == transaction.id }
        try? pendingFile.save(pending)
        return .delivered(transactionId: transaction.id, try? await customerInfo())
    }

    func post(_ transaction: StoreTransaction) async throws {
        _ = try await server.call(
            "POST", ["customers", customerId, "purchases"], body: PurchaseBody(signedTransaction: transaction.signedTransaction))
    }

    private func store(_ entry: PendingPurchase, in pending: inout [PendingPurchase]) {
        if let index = pending.firstIndex(where: { $0.transaction.id == entry.transaction.id }) {
            pending[index] = entry
        } else {
            pending.append(entry)
        }
        try? pendingFile.save(pending)
    }

    /// Tells the server the customer paid and the app gave up: a `charged_not_delivered`
    /// problem with the evidence. Whether the report got through.
    func report(_ entry: PendingPurchase) async -> Bool {
        let evidence = [
            "originalTransactionId": entry.transaction.originalId,
            "purchaseDate": ISO8601DateFormatter().string(from: entry.transaction.purchaseDate),
            "attempts": String(entry.attempts), "lastError": String((entry.lastError ?? "").prefix(900)), "source": "StorekeeperKit",
        ]
        let body = ProblemBody(
            kind: "charged_not_delivered", productId: entry.transaction.productId, transactionId: entry.transaction.id,
            signedTransaction: entry.transaction.signedTransaction, reason: "the server did not record the purchase after \(entry.attempts) attempts",
            evidence: evidence)
        do {
            _ = try await server.call("POST", ["customers", entry.customerId, "problems"], body: body)
            return true
        } catch {
            return false
        }
    }

    /// Posts again every purchase waiting for the server (and the store's unfinished
    /// transactions); reports given-up ones the server has not heard of yet.
    public func retryPendingPurchases() async -> [PurchaseOutcome] {
        var outcomes: [PurchaseOutcome] = []
        var seen = Set<String>()
        for entry in pendingFile.load() {
            seen.insert(entry.transaction.id)
            outcomes.append(await deliver(entry.transaction, force: false))
        }
        for transaction in await store.unfinishedTransactions() where !seen.contains(transaction.id) {
            outcomes.append(await deliver(transaction, force: false))
        }
        return outcomes
    }

    /// The purchases waiting for the server, as kept on disk.
    public func pendingPurchases() -> [PendingPurchase] { pendingFile.load() }

    /// Restores: asks the App Store for the account's transactions, posts every current one (and
    /// the unfinished and given-up ones) to the server, then answers the customer's information.
    public func restorePurchases() async throws -> CustomerInfo {
        do {
            try await store.sync()
        } catch {
            throw StorekeeperError(.store, "the App Store could not sync: \(error)")
        }
        var seen = Set<String>()
        for transaction in await store.currentEntitlements() + (await store.unfinishedTransactions()) + pendingFile.load().map(\.transaction)
        where seen.insert(transaction.id).inserted {
            _ = await deliver(transaction, force: true)
        }
        return try await customerInfo()
    }

    // MARK: - Promoted purchases

    func received(_ intent: PurchaseIntent) async {
        if promotedAllowed {
            _ = await purchase(productId: intent.productId, promotionalOfferId: intent.offerId)
        } else {
            promoted.append(intent)
        }
    }

    /// Purchases the customer started in the App Store, waiting for the app's go-ahead.
    public func queuedPromotedPurchases() -> [PurchaseIntent] { promoted }

    /// Lets promoted purchases proceed (the app is ready: onboarding done, the user signed in):
    /// the queued ones are bought now, later ones at once.
    public func allowPromotedPurchases() async -> [PurchaseOutcome] {
        promotedAllowed = true
        let queued = promoted
        promoted = []
        var outcomes: [PurchaseOutcome] = []
        for intent in queued { outcomes.append(await purchase(productId: intent.productId, promotionalOfferId: intent.offerId)) }
        return outcomes
    }
}
