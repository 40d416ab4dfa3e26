# Read by cpack for each generator: the Debian package installs under /usr;
# the release archive is a relocatable tree (bin/aimodel finds its module
# as ../lib/aimodel/aimodel-mlir.so wherever it is unpacked).
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
  set(CPACK_SET_DESTDIR OFF)
  set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
endif()
