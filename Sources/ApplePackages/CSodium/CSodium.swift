// The libsodium seam on Apple platforms (chosen in Package.swift): the library imports `CSodium`
// on every platform; here it is swift-sodium's `Clibsodium` module (an XCFramework).
@_exported import Clibsodium
