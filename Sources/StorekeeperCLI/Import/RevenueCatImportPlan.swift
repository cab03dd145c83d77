import Foundation
import StorekeeperStore

/// What a RevenueCat export asks Storekeeper to import, read in one pass over the file: per
/// app user id (in the order the file first names it) its other app user ids and its App Store
/// chains; rows of other stores counted by store; rows that cannot be read, by line.
///
/// Memory grows with customers and chains, not rows: a customer's renewals repeat its chain.
struct RevenueCatImportPlan {
    struct Customer {
        var appUserId: String
        var aliases: [String] = []
        var chains: [String] = []
    }

    /// A chain that two app user ids of the export name: it goes to the first.
    struct ContestedChain: Hashable {
        var originalTransactionId: String
        var claimedBy: String
        var owner: String
        var line: Int
    }

    var format: RevenueCatExport.Format = .plainList
    var compressed = false
    var rows = 0
    var appStoreRows = 0
    var skippedByStore: [String: Int] = [:]
    var malformed: [RevenueCatExport.Malformed] = []
    var customers: [Customer] = []
    var contested: [ContestedChain] = []
    private var customerIndex: [ExactId: Int] = [:]
    private var chainOwners: [String: String] = [:]

    /// Reads the export at `path`.
    static func read(path: String) throws(RevenueCatExport.Unreadable) -> RevenueCatImportPlan {
        var export = try RevenueCatExport(path: path)
        var plan = RevenueCatImportPlan()
        plan.format = export.format
        plan.compressed = export.isCompressed
        while let entry = try export.next() {
            plan.rows += 1
            switch entry {
            case .malformed(let malformed): plan.malformed.append(malformed)
            case .row(let row): plan.add(row)
            }
        }
        return plan
    }

    private mutating func add(_ row: RevenueCatExport.Row) {
        guard row.isAppStore, let chain = row.originalTransactionId else {
            skippedByStore[row.store, default: 0] += 1
            return
        }
        appStoreRows += 1
        let index: Int
        if let known = customerIndex[ExactId(row.appUserId)] {
            index = known
        } else {
            index = customers.count
            customerIndex[ExactId(row.appUserId)] = index
            customers.append(Customer(appUserId: row.appUserId))
        }
        for alias in row.aliases where !customers[index].aliases.contains(where: { CustomerId.same($0, alias) }) {
            customers[index].aliases.append(alias)
        }
        if let owner = chainOwners[chain] {
            if !CustomerId.same(owner, row.appUserId),
                !contested.contains(where: { $0.originalTransactionId == chain && CustomerId.same($0.claimedBy, row.appUserId) })
            {
                contested.append(ContestedChain(originalTransactionId: chain, claimedBy: row.appUserId, owner: owner, line: row.line))
            }
            return
        }
        chainOwners[chain] = row.appUserId
        customers[index].chains.append(chain)
    }

}

/// An app user id as a dictionary key, compared as exact bytes (``CustomerId``'s rule): Swift's
/// `String` keys would merge two ids that differ only in Unicode normalization.
struct ExactId: Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactId, rhs: ExactId) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

    func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
