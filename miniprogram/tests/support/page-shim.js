/**
 * Lets miniprogram-simulate load a page as if it were a component: the
 * page's data and behaviors become the component's and every function
 * (handlers and the lifecycle hooks onLoad/onShow/onHide/onUnload) becomes a
 * method, which the tests call as the framework would.
 */
global.Page = definition => {
  const methods = {}
  const data = definition.data || {}
  const behaviors = definition.behaviors || []
  Object.keys(definition).forEach(key => {
    if (typeof definition[key] === 'function') methods[key] = definition[key]
    else if (key !== 'data' && key !== 'behaviors') throw new Error(`page field "${key}" is not supported by the test shim`)
  })
  global.Component({behaviors, data, methods})
}

global.App = () => {}
global.getApp = () => ({})
