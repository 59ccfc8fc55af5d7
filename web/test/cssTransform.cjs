/** Stylesheets have no effect under Jest. */
module.exports = {
  process() {
    return { code: 'module.exports = {};' };
  },
};
