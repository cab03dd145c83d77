import Foundation
import StorekeeperStore

/// `storekeeper migrate --plan`'s text: a line a statement, under its step.
enum MigrationPlanText {
    static func render(_ plan: MigrationPlan, database: String) -> String {
        var lines: [String] = []
        let count = plan.steps.count
        if count == 0 && plan.missingIndexes.isEmpty {
            lines.append("\(database): schema version \(plan.currentVersion), this build's \(plan.latestVersion): nothing to run")
            return lines.joined(separator: "\n")
        }
        let steps = count == 1 ? "1 step" : "\(count) steps"
        if plan.currentVersion == 0 {
            // A new database: every table is made empty, nothing waits.
            lines.append("\(database): no schema yet: the migration creates this build's (version \(plan.latestVersion), \(steps)); nothing waits")
            lines.append("Nothing was changed (--plan).")
            return lines.joined(separator: "\n")
        } else {
            lines.append(
                "\(database): schema version \(plan.currentVersion), this build's \(plan.latestVersion): \(steps) to run, each in one transaction")
            for step in plan.steps {
                let kind = step.isContract ? "contract" : "expand"
                let label = "\(String(step.version).leftPadded(to: 3)) \(kind.padded(to: 8))"
                if step.actions.isEmpty { lines.append("  \(label) (records the version only)") }
                for (position, action) in step.actions.enumerated() {
                    lines.append("  \(position == 0 ? label : String(repeating: " ", count: 12)) \(action.summary.padded(to: 56)) \(effect(action))")
                }
            }
        }
        if !plan.missingIndexes.isEmpty {
            lines.append("then the figure read indexes that are missing (a bulk load that did not finish):")
            for action in plan.missingIndexes {
                lines.append("  \(String(repeating: " ", count: 12)) \(action.summary.padded(to: 56)) \(effect(action))")
            }
        }
        let large = (plan.steps.flatMap(\.actions) + plan.missingIndexes).filter(\.isLarge)
        if large.isEmpty {
            lines.append("No statement's time grows with a table of \(grouped(MigrationPlan.largeTable)) rows or more.")
        } else {
            lines.append(
                "LARGE: \(large.count) statement\(large.count == 1 ? "" : "s") whose time grows with a table of \(grouped(MigrationPlan.largeTable)) rows or more; "
                    + "run the migration in a quiet hour.")
        }
        if plan.steps.contains(where: \.isContract) {
            lines.append("A contract step removes what only an earlier version reads: in a rolling deploy, run it once no earlier server is left.")
        }
        lines.append("Nothing was changed (--plan).")
        return lines.joined(separator: "\n")
    }

    static func effect(_ action: MigrationPlan.Action) -> String {
        let size = action.rows.map { "\(grouped($0)) rows" } ?? "size unknown"
        let table = action.table ?? ""
        var text: String
        switch action.hold {
        case .nothing: text = action.summary.hasSuffix("(there already)") ? "nothing to do" : "a new table: nothing waits"
        case .briefly: text = "a brief exclusive lock" + (action.scales ? ", rewrites \(table) (\(size))" : "")
        case .writes: text = "writes to \(table) wait while it builds (\(size))"
        case .changedRows:
            text = action.scales ? "reads \(table) (\(size)); the rows it writes stay locked until commit" : "rows it writes stay locked until commit"
        }
        if action.isLarge { text += "  LARGE" }
        return text
    }

    static func grouped(_ value: Int64) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return String(out.reversed())
    }
}

extension String {
    fileprivate func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
