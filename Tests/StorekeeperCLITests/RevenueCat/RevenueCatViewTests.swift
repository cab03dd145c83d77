import Foundation
import SubscriptionEngine
import Testing

@testable import StorekeeperCLI

@Suite("RevenueCat's active entitlements from export rows")
struct RevenueCatViewTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let catalog = Catalog(products: [
        CatalogProduct(productId: "premium.monthly", type: .autoRenewable, entitlements: ["premium"]),
        CatalogProduct(productId: "pro.monthly", type: .autoRenewable, entitlements: ["premium", "pro"]),
        CatalogProduct(productId: "coins", type: .consumable),
        CatalogProduct(productId: "lifetime", type: .nonConsumable),
    ])

    static func row(
        _ product: String, chain: String, start: TimeInterval, end: TimeInterval?, renewable: Bool = true, refunded: TimeInterval? = nil,
        entitlements: [String]? = nil
    ) -> RevenueCatExport.Row {
        var row = RevenueCatExport.Row(line: 2, appUserId: "alice", aliases: [], store: "app_store")
        row.productId = product
        row.originalTransactionId = chain
        row.startTime = now.addingTimeInterval(start)
        row.endTime = end.map(now.addingTimeInterval)
        row.refundedAt = refunded.map(now.addingTimeInterval)
        row.isAutoRenewable = renewable
        row.entitlements = entitlements
        return row
    }

    static func grants(_ rows: [RevenueCatExport.Row]) -> [String: RevenueCatView.Grant] {
        var view = RevenueCatView(appUserId: "alice")
        for row in rows { view.add(row, catalog: catalog, at: now) }
        return view.grants(catalog: catalog, at: now)
    }

    @Test("of a chain only the latest row counts, whatever the file's order: an upgrade's earlier period grants nothing")
    func latestRowOfAChain() {
        let grants = Self.grants([
            Self.row("pro.monthly", chain: "1", start: -86_400, end: 29 * 86_400),
            Self.row("premium.monthly", chain: "1", start: -20 * 86_400, end: 10 * 86_400),
        ])
        #expect(grants.keys.sorted() == ["premium", "pro"])
        #expect(grants["premium"]?.productId == "pro.monthly")
    }

    @Test("a refunded or ended latest row grants nothing; the export's entitlement list wins over the catalog's")
    func refundsEndsAndLists() {
        #expect(Self.grants([Self.row("premium.monthly", chain: "1", start: -86_400, end: 86_400, refunded: -60)]).isEmpty)
        #expect(Self.grants([Self.row("premium.monthly", chain: "1", start: -86_400, end: -1)]).isEmpty)
        let listed = Self.grants([Self.row("premium.monthly", chain: "1", start: -86_400, end: 86_400, entitlements: ["gold"])])
        #expect(listed.keys.sorted() == ["gold"])
        #expect(Self.grants([Self.row("premium.monthly", chain: "1", start: -86_400, end: 86_400, entitlements: [])]).isEmpty)
    }

    @Test("one-time purchases: a lifetime purchase without an end grants for good, a consumable never")
    func oneTimePurchases() {
        let grants = Self.grants([
            Self.row("lifetime", chain: "2", start: -86_400, end: nil, renewable: false),
            Self.row("coins", chain: "3", start: -86_400, end: nil, renewable: false),
        ])
        #expect(grants.keys.sorted() == ["lifetime"])
        #expect(grants["lifetime"]?.endTime == nil)
    }
}
