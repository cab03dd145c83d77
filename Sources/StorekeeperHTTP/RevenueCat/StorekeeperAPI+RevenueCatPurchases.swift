import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

/// What the SDK's `fetch_token` carries (`EncodedAppleReceipt` in purchases-ios): a StoreKit 2
/// signed transaction (a JWS), StoreKit 2 data shaped like a receipt (base64 JSON
/// `{"transactions": [JWS…], "subscription_status": {group: [{"transaction": JWS…}]}, …}`, sent
/// when the app has no receipt), or a StoreKit 1 app receipt (base64 PKCS #7).
package enum RevenueCatFetchToken: Sendable, Hashable {
    case signedTransaction(String)
    case storeKit2Receipt(transactions: [String])
    case receipt(String)

    /// The most signed transactions a StoreKit 2 receipt may carry.
    package static let maximumTransactions = 100

    /// The token's kind; `nil` for an empty one.
    package init?(_ text: String) throws {
        guard !text.isEmpty else { return nil }
        if text.split(separator: ".", omittingEmptySubsequences: false).count == 3, !text.contains(where: \.isWhitespace) {
            self = .signedTransaction(text)
            return
        }
        if let data = Data(base64Encoded: text), data.first == UInt8(ascii: "{") {
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw RevenueCatSDKError(.unprocessableContent, code: .invalidReceiptToken, message: "the StoreKit 2 receipt is not a JSON object")
            }
            var transactions = object["transactions"] as? [String] ?? []
            for statuses in (object["subscription_status"] as? [String: Any] ?? [:]).values {
                for status in statuses as? [[String: Any]] ?? [] {
                    if let transaction = status["transaction"] as? String { transactions.append(transaction) }
                }
            }
            var seen = Set<String>()
            transactions = transactions.filter { seen.insert($0).inserted }
            guard transactions.count <= Self.maximumTransactions else {
                throw RevenueCatSDKError.badRequest("a StoreKit 2 receipt may carry at most \(Self.maximumTransactions) transactions")
            }
            self = .storeKit2Receipt(transactions: transactions)
            return
        }
        self = .receipt(text)
    }
}

extension StorekeeperAPI {
    /// The submissions a fetch token makes for `customerId`, verified exactly as
    /// `POST …/customers/{customerId}/purchases` verifies (``verifiedTransaction(_:app:now:)``,
    /// ``verifiedReceipt(_:app:now:)``): one per signed transaction, one for a receipt.
    package func revenueCatSubmissions(_ token: RevenueCatFetchToken, customerId: String, app: AppRuntime, now: Date) async throws -> [FactSubmission]
    {
        switch token {
        case .signedTransaction(let signed):
            let (fact, appAccountToken) = try await verifiedTransaction(signed, app: app, now: now)
            return [
                FactSubmission(
                    facts: [.purchase(fact)], source: .storeKit2, raw: signed,
                    binding: .claimedBy(customerId: customerId, appAccountToken: appAccountToken))
            ]
        case .storeKit2Receipt(let transactions):
            var submissions: [FactSubmission] = []
            for signed in transactions {
                let (fact, appAccountToken) = try await verifiedTransaction(signed, app: app, now: now)
                submissions.append(
                    FactSubmission(
                        facts: [.purchase(fact)], source: .storeKit2, raw: signed,
                        binding: .claimedBy(customerId: customerId, appAccountToken: appAccountToken)))
            }
            return submissions
        case .receipt(let receipt):
            return [
                FactSubmission(
                    facts: try verifiedReceipt(receipt, app: app, now: now), source: .receipt, raw: receipt,
                    binding: .claimedBy(customerId: customerId, appAccountToken: nil))
            ]
        }
    }

    /// `POST v1/receipts` (`{app_user_id, fetch_token, attributes, …}`): verifies the fetch
    /// token, records its facts as the customer's through the intake, stores the attributes it
    /// carries, and answers the customer's CustomerInfo. A purchase whose chain is another
    /// customer's is refused with 7102 (`receiptAlreadyInUseError`): Storekeeper never
    /// transfers purchases. A body without a fetch token records nothing.
    package func revenueCatReceipt(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let object = try await revenueCatBody(request)
        let customer = try await revenueCatCustomer(app: app, appUserId: try Self.appUserId(object, "app_user_id"))
        let now = clock()
        guard object["fetch_token"] == nil || object["fetch_token"] is String || object["fetch_token"] is NSNull else {
            throw RevenueCatSDKError.badRequest("fetch_token must be a string")
        }
        if let text = object["fetch_token"] as? String, let token = try RevenueCatFetchToken(text) {
            for submission in try await revenueCatSubmissions(token, customerId: customer.id, app: app, now: now) {
                do {
                    try await intake.record(submission, app: app, now: now)
                } catch is FactIntake.AliasTaken {
                    throw Self.revenueCatTransferRefused
                } catch let error as StoreError where error.code == .aliasConflict {
                    throw Self.revenueCatTransferRefused
                }
            }
        }
        if let attributes = object["attributes"] as? [String: Any], !attributes.isEmpty {
            // Attributes ride along with the purchase; a refused one never fails it.
            do {
                try await storeRevenueCatAttributes(attributes, app: app, customerId: customer.id)
            } catch let refusal as RevenueCatSDKError {
                context.logger.debug("attributes refused with a receipt", metadata: ["message": "\(refusal.message)"])
            }
        }
        return try await revenueCatCustomerInfo(app: app, customerId: customer.id).response()
    }

    /// `POST v1/subscribers/{appUserId}/restore/eligibility` (`{fetch_token}`,
    /// `Purchases.isPurchaseAllowedByRestoreBehavior`): whether posting the fetch token for this
    /// customer would be accepted, that is whether none of the chains it proves is another
    /// customer's (Storekeeper keeps purchases with the customer who posted them first).
    /// Verified, not recorded: `{"is_purchase_allowed_by_restore_behavior": Bool}`.
    package func revenueCatRestoreEligibility(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let object = try await revenueCatBody(request)
        let customer = try await revenueCatCustomer(app: app, appUserId: try context.appUserId())
        var allowed = true
        if let text = object["fetch_token"] as? String, let token = try RevenueCatFetchToken(text) {
            let submissions = try await revenueCatSubmissions(token, customerId: customer.id, app: app, now: clock())
            let chains = Set(submissions.flatMap(\.facts).compactMap(\.fact.originalTransactionId))
            let owners = try await store.customers(appId: app.id, aliases: chains.map(CustomerAlias.originalTransactionId))
            allowed = owners.values.allSatisfy { CustomerId.same($0, customer.id) }
        }
        return JSONBody.response(json: ByteBuffer(string: "{\"is_purchase_allowed_by_restore_behavior\":\(allowed)}"))
    }

    static let revenueCatTransferRefused = RevenueCatSDKError(
        .conflict, code: .cannotTransferPurchase,
        message: "this purchase belongs to another customer of the app; Storekeeper does not transfer purchases")

    /// `POST v1/subscribers/{appUserId}/intro_eligibility` (`{product_identifiers, fetch_token}`):
    /// `{productId: true | false | null}` as the SDK decodes it, from the engine's eligibility
    /// for each product's subscription group, over the customer's ledger and what the fetch
    /// token proves (verified, not recorded). `null` (unknown) for a product that is not an
    /// auto-renewable subscription of the catalog.
    package func revenueCatIntroEligibility(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let object = try await revenueCatBody(request)
        let customer = try await revenueCatCustomer(app: app, appUserId: try context.appUserId())
        guard let products = object["product_identifiers"] as? [String], products.count <= 1000,
            products.allSatisfy({ (1...256).contains($0.utf8.count) })
        else {
            throw RevenueCatSDKError.badRequest("product_identifiers must be at most 1000 ids of 1 to 256 bytes")
        }
        let now = clock()
        var entries = try await store.ledger(appId: app.id, customerId: customer.id)
        if let text = object["fetch_token"] as? String, let token = try? RevenueCatFetchToken(text),
            let submissions = try? await revenueCatSubmissions(token, customerId: customer.id, app: app, now: now)
        {
            entries += submissions.flatMap(\.facts).map {
                LedgerEntry(appId: app.id, fact: $0.fact, customerId: customer.id, source: .storeKit2, recordedAt: now)
            }
        }
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: now)
        var answer: [String: Any] = [:]
        for product in products {
            guard let catalogProduct = app.catalog.product(product), catalogProduct.type == .autoRenewable,
                let group = catalogProduct.subscriptionGroupIdentifier
            else {
                answer[product] = NSNull()
                continue
            }
            answer[product] = state.eligibility[group]?.introductoryOffer ?? true
        }
        let data = try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])
        return JSONBody.response(json: ByteBuffer(data: data))
    }

    /// `POST v1/offers` (`{app_user_id, fetch_token, generate_offers: [{offer_id, product_id,
    /// subscription_group}]}`): each promotional offer signed as Storekeeper signs offers
    /// (``PromotionalOfferSigning``: the engine's eligibility, then the app's In-App Purchase
    /// key), answered as `{offers: [{key_id, offer_id, product_id, signature_data: {nonce,
    /// signature, timestamp}, signature_error}]}`. The signature binds what the SDK passes to
    /// StoreKit as the application username: the app user id (StoreKit 1), or with StoreKit 2
    /// (`X-StoreKit2-Enabled: true`) the app user id when it is a UUID, else nothing.
    package func revenueCatOffer(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let object = try await revenueCatBody(request)
        let appUserId = try Self.appUserId(object, "app_user_id")
        let customer = try await revenueCatCustomer(app: app, appUserId: appUserId)
        guard let wanted = object["generate_offers"] as? [[String: Any]], (1...10).contains(wanted.count) else {
            throw RevenueCatSDKError.badRequest("generate_offers must list 1 to 10 offers")
        }
        let storeKit2 = request.headers[.revenueCatStoreKit2Enabled]?.lowercased() == "true"
        let username = storeKit2 ? (UUID(uuidString: appUserId)?.uuidString.lowercased() ?? "") : appUserId
        let now = clock()
        let ledger = try await store.ledger(appId: app.id, customerId: customer.id)
        let signing = PromotionalOfferSigning(app: app, now: now)
        var offers: [[String: Any]] = []
        for item in wanted {
            guard let offerId = item["offer_id"] as? String, let productId = item["product_id"] as? String,
                (1...256).contains(offerId.utf8.count), (1...256).contains(productId.utf8.count)
            else {
                throw RevenueCatSDKError.badRequest("each offer needs offer_id and product_id of 1 to 256 bytes")
            }
            let offer = PromotionalOfferSigning.Offer(
                customerId: customer.id, productId: productId, offerId: offerId, format: .legacy, nonce: UUID(), transactionId: nil)
            var answer: [String: Any] = ["offer_id": offerId, "product_id": productId]
            do {
                try signing.check(offer, ledger: ledger)
                let signed = try signing.sign(offer, token: username)
                answer["key_id"] = signed.keyId
                answer["signature_data"] = [
                    "nonce": offer.nonce.uuidString.lowercased(), "signature": signed.signature ?? "", "timestamp": signed.timestamp,
                ]
            } catch {
                let (code, message): (RevenueCatSDKError.Code, String) =
                    switch error {
                    case .unknownProduct(let product): (.badRequest, "\(product) is not an auto-renewable subscription of the catalog")
                    case .notEligible(let group, let reason): (.userIneligibleForPromoOffer, "not eligible in group \(group): \(reason)")
                    case .noCredentials: (.invalidAppleSubscriptionKey, "the app has no In-App Purchase key to sign offers with")
                    case .signingFailed: (.internalServerError, "the offer could not be signed")
                    }
                answer["key_id"] = app.signingKey?.keyId ?? ""
                answer["signature_error"] = ["code": code.rawValue, "message": message]
            }
            offers.append(answer)
        }
        let data = try JSONSerialization.data(withJSONObject: ["offers": offers], options: [.sortedKeys])
        return JSONBody.response(json: ByteBuffer(data: data))
    }
}
