// On Apple platforms where StoreKit exists; and on Linux only inside the StoreKitAdapterCheck
// test target, which compiles this file against the StoreKit declarations it copies from Apple's
// documentation (`canImport(StoreKit)` alone would also see that test module from the library).
#if (canImport(StoreKit) && canImport(Darwin)) || STOREKEEPER_STOREKIT_CHECK
import Foundation
import StoreKit

#if STOREKEEPER_STOREKIT_CHECK
import StorekeeperKit
#endif

/// StorekeeperKit's store on Apple platforms: StoreKit 2, verified transactions only.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct StoreKitBackend: StoreBackend {
    public init() {}

    public func products(for ids: [String]) async throws -> [StoreProduct] {
        try await Product.products(for: ids).map { product in
            StoreProduct(
                id: product.id, kind: Self.kind(product.type), displayName: product.displayName, displayPrice: product.displayPrice,
                subscriptionGroupId: product.subscription?.subscriptionGroupID)
        }
    }

    public func purchase(productId: String, options: StorePurchaseOptions) async -> StorePurchaseResult {
        let product: Product
        do {
            guard let found = try await Product.products(for: [productId]).first else { return .failed(.productUnavailable) }
            product = found
        } catch {
            return .failed(.network)
        }
        var choices: Set<Product.PurchaseOption> = [.appAccountToken(options.appAccountToken)]
        if let offer = options.promotionalOffer, let signature = Data(base64Encoded: offer.signature) {
            choices.insert(
                .promotionalOffer(
                    offerID: offer.offerId, keyID: offer.keyId, nonce: offer.nonce, signature: signature, timestamp: Int(offer.timestamp)))
        }
        do {
            switch try await product.purchase(options: choices) {
            case .success(let result):
                switch result {
                case .verified(let transaction): return .purchased(Self.transaction(transaction, jws: result.jwsRepresentation))
                case .unverified(_, let error): return .failed(.unverified("\(error)"))
                }
            case .userCancelled: return .userCancelled
            case .pending: return .pending
            @unknown default: return .failed(.other("an unknown purchase result"))
            }
        } catch let error as Product.PurchaseError {
            switch error {
            case .purchaseNotAllowed: return .failed(.notAllowed)
            case .productUnavailable: return .failed(.productUnavailable)
            default: return .failed(.other("\(error)"))
            }
        } catch let error as StoreKitError {
            switch error {
            case .userCancelled: return .userCancelled
            case .networkError: return .failed(.network)
            case .notAvailableInStorefront, .notEntitled: return .failed(.productUnavailable)
            default: return .failed(.other("\(error)"))
            }
        } catch {
            return .failed(.other("\(error)"))
        }
    }

    public func transactionUpdates() -> AsyncStream<StoreTransaction> {
        AsyncStream { continuation in
            let task = Task {
                for await result in Transaction.updates {
                    if case .verified(let transaction) = result {
                        continuation.yield(Self.transaction(transaction, jws: result.jwsRepresentation))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func unfinishedTransactions() async -> [StoreTransaction] {
        await Self.verified(Transaction.unfinished)
    }

    public func currentEntitlements() async -> [StoreTransaction] {
        await Self.verified(Transaction.currentEntitlements)
    }

    public func sync() async throws {
        try await AppStore.sync()
    }

    public func finish(_ transaction: StoreTransaction) async {
        for await result in Transaction.unfinished {
            if case .verified(let unfinished) = result, String(unfinished.id) == transaction.id {
                await unfinished.finish()
                return
            }
        }
    }

    /// Purchases started in the App Store (promoted in-app purchases): StoreKit has them on
    /// iOS and iPadOS 16.4, macOS 14.4 and visionOS only, with the offer from iOS 18, macOS 15
    /// and visionOS 2; elsewhere the stream ends at once.
    public func purchaseIntents() -> AsyncStream<StorekeeperKit.PurchaseIntent> {
        #if os(iOS) || os(macOS) || os(visionOS) || STOREKEEPER_STOREKIT_CHECK
        AsyncStream { continuation in
            let task = Task {
                guard #available(iOS 16.4, macOS 14.4, *) else { return continuation.finish() }
                for await intent in StoreKit.PurchaseIntent.intents {
                    var offerId: String?
                    if #available(iOS 18.0, macOS 15.0, visionOS 2.0, *) { offerId = intent.offer?.id }
                    continuation.yield(StorekeeperKit.PurchaseIntent(productId: intent.product.id, offerId: offerId))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        #else
        AsyncStream { $0.finish() }
        #endif
    }

    static func verified(_ results: Transaction.Transactions) async -> [StoreTransaction] {
        var transactions: [StoreTransaction] = []
        for await result in results {
            if case .verified(let transaction) = result { transactions.append(Self.transaction(transaction, jws: result.jwsRepresentation)) }
        }
        return transactions
    }

    static func transaction(_ transaction: Transaction, jws: String) -> StoreTransaction {
        StoreTransaction(
            id: String(transaction.id), originalId: String(transaction.originalID), productId: transaction.productID, signedTransaction: jws,
            appAccountToken: transaction.appAccountToken, purchaseDate: transaction.purchaseDate, revocationDate: transaction.revocationDate)
    }

    static func kind(_ type: Product.ProductType) -> StoreProduct.Kind {
        switch type {
        case .autoRenewable: return .autoRenewable
        case .nonRenewable: return .nonRenewable
        case .consumable: return .consumable
        default: return .nonConsumable
        }
    }
}
#endif
