// The libsodium seam on Apple platforms (Package.swift, issue 28): the library imports `CSodium`
// on every platform; here it is swift-sodium's `Clibsodium` module (an XCFramework).
@_exported import Clibsodium
