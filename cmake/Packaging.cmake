# `cmake --install` and the Debian package (`cpack -G DEB`, docs/install.md): krow, the two
# libraries setup-deps.sh builds or fetches for it (librdkafka, DuckDB) in lib/krow beside it,
# found through a relative rpath, the systemd unit of `krow serve` and its default config.
include(GNUInstallDirs)

set_target_properties(krow PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}/krow")
install(TARGETS krow RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

file(REAL_PATH "${RDKAFKA_LIBRARY_DIRS}/librdkafka.so.1" KROW_RDKAFKA_FILE)
file(REAL_PATH "${DUCKDB_LIBRARY}" KROW_DUCKDB_FILE)
install(FILES "${KROW_RDKAFKA_FILE}" DESTINATION ${CMAKE_INSTALL_LIBDIR}/krow RENAME librdkafka.so.1)
install(FILES "${KROW_DUCKDB_FILE}" DESTINATION ${CMAKE_INSTALL_LIBDIR}/krow RENAME libduckdb.so)

install(FILES packaging/krow-serve.service DESTINATION lib/systemd/system)
# /etc/krow whatever the prefix (a conffile of the package: an edited one is kept on upgrade).
install(FILES packaging/server.yaml DESTINATION /etc/krow)
install(FILES README.md docs/serve.md docs/openapi.yaml DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME krow)
set(CPACK_PACKAGE_VENDOR "krow")
set(CPACK_PACKAGE_CONTACT "krow maintainers <krow@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Kafka topics into warehouses, one row per message, exactly once")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "krow copies Kafka topics into DuckDB, PostgreSQL or BigQuery, one row per message, decoding "
       "Schema Registry payloads (Avro, Protobuf, JSON Schema), exactly once. krow serve hosts syncs "
       "on schedules with users, roles, a REST API and Prometheus metrics.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
# The Debian libraries krow links, from the binary itself; librdkafka and DuckDB ship inside.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${CMAKE_SOURCE_DIR}/packaging/postinst;${CMAKE_SOURCE_DIR}/packaging/postrm;${CMAKE_SOURCE_DIR}/packaging/conffiles")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
