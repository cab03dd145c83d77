// swift-tools-version: 6.1
// libFuzzer targets for Storekeeper's parsers. Kept out of the main package because they only
// link with `-sanitize=fuzzer`. See README.md in this folder.
import PackageDescription

let package = Package(
    name: "StorekeeperFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Storekeeper", path: ".."),
    ],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver, so a normal `main` can start the fuzzer
        // (SwiftPM renames an executable's `main`, which breaks libFuzzer's own).
        .target(name: "FuzzerDriver"),
        .executableTarget(
            name: "FuzzJWS",
            dependencies: [
                "FuzzerDriver",
                .product(name: "AppStoreVerification", package: "Storekeeper"),
                .product(name: "AppStoreTestSigning", package: "Storekeeper"),
            ]
        ),
        .executableTarget(
            name: "FuzzReceipt",
            dependencies: [
                "FuzzerDriver",
                .product(name: "AppStoreModels", package: "Storekeeper"),
                .product(name: "AppStoreVerification", package: "Storekeeper"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
