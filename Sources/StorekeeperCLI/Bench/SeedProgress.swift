import Foundation

/// What a seed has written so far, saved next to the data after every slice
/// (`seed-progress.json`), so that `storekeeper bench seed --resume` goes on from there when
/// the process was stopped; removed when the seed finishes.
///
/// The file says which slices were written and what they added up to; the database says,
/// with the rollup changes it holds, how far those are written (``ScaleSeed/checkpoint(after:)``):
/// a seed stopped at any point resumes with the slice after the last one the file names,
/// holding again the rollup changes of the documents written since the database's checkpoint.
struct SeedProgress: Codable, Sendable {
    static let fileName = "seed-progress.json"

    /// What the seed was asked for: a resumed seed is the same seed.
    struct Parameters: Codable, Sendable, Equatable {
        var subscriptions: Int
        var days: Double
        var seed: UInt64
        var sliceSize: Int
        var end: Date
        var writesFigures: Bool
        var defersIndexes: Bool
    }

    var parameters: Parameters
    /// The PostgreSQL database seeded, or nil for the SQLite database of the directory.
    var databaseURL: String?
    var apiKey: String
    /// Slices `0..<completedSlices` are written.
    var completedSlices: Int
    var summary: ScaleSeed.Summary
    /// Time spent by the runs before this one.
    var elapsedSeconds: Double
    /// How many times the seed was resumed.
    var resumptions: Int

    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String { "nothing to resume: \(path) is missing (a seed saves it after its first step and removes it when done)" }
    }

    static func read(from url: URL) throws -> SeedProgress {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw Missing(path: url.path) }
        return try JSONDecoder().decode(SeedProgress.self, from: data)
    }

    /// Writes the file whole or not at all (a new file renamed over the old).
    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
