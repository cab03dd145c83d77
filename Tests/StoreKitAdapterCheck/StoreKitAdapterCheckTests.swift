import Foundation
import StoreKit
import StorekeeperKit
import Testing

/// The StoreKit 2 adapter's source, compiled here against the StoreKit declarations of
/// `Tests/StoreKit` (copied from Apple's documentation): the compiler checks every call it
/// makes; these tests check what it makes of StoreKit's values.
@Suite("StoreKit adapter (compiled against StoreKit's declarations)")
struct StoreKitAdapterCheckTests {
    @Test("the adapter is a StorekeeperKit store")
    func conforms() {
        let backend: any StoreBackend = StoreKitBackend()
        #expect(backend is StoreKitBackend)
    }

    @Test("StoreKit's product types map onto the core's kinds")
    func kinds() {
        #expect(StoreKitBackend.kind(.autoRenewable) == .autoRenewable)
        #expect(StoreKitBackend.kind(.nonRenewable) == .nonRenewable)
        #expect(StoreKitBackend.kind(.consumable) == .consumable)
        #expect(StoreKitBackend.kind(.nonConsumable) == .nonConsumable)
    }

    @Test("a verified transaction keeps its ids, token, dates and Apple's JWS")
    func transaction() {
        let token = UUID()
        let purchased = Date(timeIntervalSince1970: 1_700_000_000)
        let converted = StoreKitBackend.transaction(
            Transaction(id: 42, originalID: 7, productID: "premium", appAccountToken: token, purchaseDate: purchased, revocationDate: nil),
            jws: "header.payload.signature")
        #expect(converted.id == "42" && converted.originalId == "7" && converted.productId == "premium")
        #expect(converted.appAccountToken == token && converted.purchaseDate == purchased && converted.revocationDate == nil)
        #expect(converted.signedTransaction == "header.payload.signature")
    }
}
