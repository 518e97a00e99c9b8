#!/bin/sh
# The build step of plans/tomcat.toml (run from the repository root): fetch the Apache Tomcat distribution VERSION
# through Maven (org.apache.tomcat:tomcat:VERSION:tar.gz, once; it stays in target/tomcat/, unpacked) and lay out the
# catalina.base every cell starts from, target/tomcat-base/: the distribution's conf with this folder's server.xml
# (per-cell port, no shutdown port, no access log) and logging.properties (console only), and the ROOT web app.
set -eu
VERSION=${1:?usage: build.sh TOMCAT_VERSION, e.g. 10.1.59}
HOME_DIR=target/tomcat/apache-tomcat-$VERSION
BASE=target/tomcat-base
if [ ! -f "$HOME_DIR/bin/catalina.sh" ]; then
  # dependency:copy, not dependency:unpack: unpack keeps "already unpacked" markers outside target/tomcat and would
  # skip the unpacking after target/ was cleaned.
  mvn -B -q dependency:copy -Dartifact="org.apache.tomcat:tomcat:$VERSION:tar.gz" -DoutputDirectory=target/tomcat
  tar -xzf "target/tomcat/tomcat-$VERSION.tar.gz" -C target/tomcat
fi
# Laid out already from the same files: leave it alone (a sweep may be using it).
if cmp -s plans/tomcat/server.xml "$BASE/conf/server.xml" && cmp -s plans/tomcat/logging.properties \
  "$BASE/conf/logging.properties" && cmp -s "$HOME_DIR/conf/web.xml" "$BASE/conf/web.xml"; then
  exit 0
fi
NEW="$BASE.new.$$"
rm -rf "$NEW"
mkdir -p "$NEW/conf" "$NEW/webapps"
cp "$HOME_DIR/conf/web.xml" "$HOME_DIR/conf/catalina.properties" "$HOME_DIR/conf/context.xml" "$NEW/conf/"
cp plans/tomcat/server.xml plans/tomcat/logging.properties "$NEW/conf/"
cp -R "$HOME_DIR/webapps/ROOT" "$NEW/webapps/"
rm -rf "$BASE"
mv "$NEW" "$BASE"
