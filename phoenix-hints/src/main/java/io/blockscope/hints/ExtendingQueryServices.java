package io.blockscope.hints;

import java.util.concurrent.ThreadPoolExecutor;
import org.apache.phoenix.optimize.QueryOptimizer;
import org.apache.phoenix.query.ConnectionQueryServices;
import org.apache.phoenix.query.DelegateConnectionQueryServices;

/** A Phoenix cluster's query services with blockscope's optimizer in front of Phoenix's. */
final class ExtendingQueryServices extends DelegateConnectionQueryServices {
  private final QueryOptimizer optimizer;
  private final SerialExecutor executor;

  ExtendingQueryServices(ConnectionQueryServices delegate) {
    super(delegate);
    this.optimizer = new ExtendingOptimizer(this);
    this.executor = new SerialExecutor(delegate.getExecutor());
  }

  @Override
  public ThreadPoolExecutor getExecutor() {
    return executor;
  }

  @Override
  public QueryOptimizer getOptimizer() {
    return optimizer;
  }
}
